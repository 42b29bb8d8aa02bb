/**
 * @module Prices before the run (issue 23, part 5): GET /pricing, the public price list, and
 * POST /estimate/<create path>, what a create call would hold for this body and whether the
 * balance covers it, creating nothing. The estimate runs the create call's own route as a dry
 * run (services/pricing/estimate.ts), so it validates and prices exactly as the call does.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AuthedEnv, ApiDeps } from '../context.ts';
import { ApiError } from '../errors.ts';
import { apiKeyAuth } from '../middleware/api-key-auth/index.ts';
import type { OpenApiDocument } from '../openapi/document.ts';
import { apiKeySecurity, authedErrorResponses, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import { taskRepository } from '../repositories/task-repository.ts';
import { runEstimate } from '../services/pricing/estimate.ts';
import { priceList } from '../services/pricing/price-list.ts';
import { ActionPrice, BillingConfig } from './billing/schemas.ts';
import { createMiddleware } from 'hono/factory';

const PriceList = z
  .object({
    actions: z.array(ActionPrice).openapi({ description: 'Every action this server sells and its credits, the table every submit holds from.' }),
    plans: BillingConfig.shape.plans,
    topup: BillingConfig.shape.topup,
    trial: BillingConfig.shape.trial,
    auto_topup: BillingConfig.shape.auto_topup,
  })
  .openapi('PriceList', {
    example: {
      actions: [
        { type: 'imagine', credits: 4, per: null },
        { type: 'upscale#1', credits: 2, per: null },
        { type: 'kling-video', credits: 3, per: 'second' },
      ],
      plans: [{ id: 'basic', label: 'Basic', amount: 39, credits: 1000 }],
      topup: { presets: [10, 20, 50, 100, 200, 500], block_dollars: 10, credits_per_block: 250, max_dollars: 10000 },
      trial: { amount: 10, credits: 250, days: 7 },
      auto_topup: { thresholds: [250, 500, 1250, 2500], default_min: 250, default_amount: 10 },
    },
  });

const Estimate = z
  .object({
    operation: z.string().openapi({ description: 'The create call estimated.' }),
    task_type: z.string().openapi({ description: 'The task it would create, as POST /fetch would show its type.' }),
    credits: z.number().int().openapi({ description: 'What it would hold now (refunded if the task fails).' }),
    balance: z.number().int().openapi({ description: 'Your balance now.' }),
    sufficient: z.boolean().openapi({ description: 'Whether the balance covers it; when false the call would answer 402.' }),
  })
  .openapi('Estimate', { example: { operation: 'POST /pro/imagine', task_type: 'imagine', credits: 4, balance: 120, sufficient: true } });

/** POST paths whose call creates a task (answers `{ task_id }`), read from the OpenAPI document. */
function createPathsOf(doc: OpenApiDocument): Set<string> {
  const paths = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const schema = (item?.post?.responses?.['200'] as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined)?.content?.['application/json']
      ?.schema;
    if (schema?.$ref === '#/components/schemas/TaskIdResponse') paths.add(path);
  }
  return paths;
}

export function pricingRoutes(deps: ApiDeps & { dispatch: (req: Request) => Promise<Response>; document: () => OpenApiDocument }) {
  const router = createRouter();
  let createPaths: Set<string> | undefined;

  // GET /pricing – the public price list: every action's credits, the plans and the top-up blocks
  router.openapi(
    createRoute({
      method: 'get',
      path: '/pricing',
      tags: ['Pricing'],
      summary: 'Price list',
      description:
        'Public, no key needed. Every action (task type) and the credits its task holds when it is created (refunded if it fails), priced from the table every submit uses; and the plans, top-up blocks, trial and auto top-up limits (dollars).',
      responses: { 200: jsonResponse(PriceList, 'The price list.') },
    }),
    (c) => {
      c.header('cache-control', 'public, max-age=300');
      return c.json(priceList(), 200);
    },
  );

  // POST /estimate/{operation} – documented here; served below (the operation is a path with slashes)
  router.openAPIRegistry.registerPath({
    method: 'post',
    path: '/estimate/{operation}',
    tags: ['Pricing'],
    summary: 'Estimate a create call',
    description:
      'Send any create call’s body to `/estimate` + its path (e.g. `POST /estimate/pro/imagine` with `{"prompt":"…"}`, `POST /estimate/pro/upscale` with `{"parent_task_id":"…","index":2}`): the answer is the credits that call would hold now and whether your balance covers them. Nothing is created, held or stored. ' +
      'The call itself runs as a dry run, so its validation, parent checks and price are exactly those of the real call: a body it would refuse gets the same refusal (400, 404, 409…), and an insufficient balance answers 200 with `sufficient: false` instead of 402. A read: any key with the `read` scope, rate limited as a read. An `Idempotency-Key` header is ignored.',
    security: apiKeySecurity,
    request: {
      params: z.object({
        operation: z.string().openapi({
          description: 'The create call’s path without its leading slash, slashes kept: `pro/imagine`, `faceswap`, `kling-imagine`…',
          example: 'pro/imagine',
        }),
      }),
      body: {
        required: true,
        content: { 'application/json': { schema: z.record(z.string(), z.unknown()).openapi({ description: 'The body the create call takes.' }) } },
      },
    },
    responses: {
      200: jsonResponse(Estimate, 'What the call would hold, and whether the balance covers it.'),
      ...authedErrorResponses,
    },
  });

  const readAuth = apiKeyAuth(deps, 'read');
  router.post(
    '/estimate/:operation{.+}',
    createMiddleware<AuthedEnv>((c, next) => readAuth(c, next)),
    async (c) => {
      const path = c.req.path.slice('/estimate'.length);
      createPaths ??= createPathsOf(deps.document());
      if (!createPaths.has(path))
        throw new ApiError(
          'not_found',
          `No create call POST ${path || '/'} to estimate: send a create call's body to /estimate + its path, e.g. /estimate/pro/imagine`,
        );
      const account = c.get('account');
      const url = new URL(c.req.url);
      url.pathname = path;
      url.search = '';
      const headers = new Headers(c.req.raw.headers);
      headers.delete('idempotency-key');
      headers.set('x-request-id', c.get('requestId'));
      // the body is passed on as a stream: the call's own body limit applies
      const call = new Request(url, { method: 'POST', headers, body: c.req.raw.body, duplex: 'half' } as RequestInit);
      const outcome = await runEstimate(account, () => deps.dispatch(call));
      if (outcome.response) return outcome.response;
      const balance = await taskRepository(deps.db).creditsOf(account.id);
      const { type, credits } = outcome.reached;
      return c.json({ operation: `POST ${path}`, task_type: type, credits, balance, sufficient: balance >= credits }, 200);
    },
  );

  return router;
}
