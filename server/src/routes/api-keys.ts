/**
 * @module Named, scoped API keys (issue 20) under /auth/api-keys: list, create (the key is
 * answered once), revoke. Managing credentials needs the signed-in dashboard session, like
 * rotating the primary key (docs/decisions/0013-named-scoped-api-keys.md).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { sessionAuth } from '../middleware/session-auth/index.ts';
import { bodyErrorResponses, dashboardErrorResponses, dashboardSecurity, errorExample, jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import { API_KEY_SCOPES } from '../repositories/api-key-repository.ts';
import { createApiKey, listApiKeys, MAX_ACTIVE_KEYS, revokeApiKey } from '../services/api-keys/manage-api-keys.ts';

const EXAMPLE_ID = '5a0c3f7e-2b1d-4e6f-8a9b-0c1d2e3f4a5b';
// the most a limit can be: far above any plan, well inside an integer column
const MAX_MONTHLY_LIMIT = 100_000_000;

const KEY_EXAMPLE = {
  id: EXAMPLE_ID,
  name: 'CI pipeline',
  prefix: 'ak_7Hq2x',
  last4: 'P9dZ',
  scopes: ['generate', 'read'],
  created_at: '2026-11-28T09:00:00.000Z',
  last_used_at: '2026-11-28T09:12:00.000Z',
  expires_at: null,
  revoked_at: null,
  revoked: false,
  expired: false,
  monthly_credit_limit: 5000,
  used_this_month: 120,
};

const ApiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ description: 'The first 8 characters of the key (`ak_` + 5).' }),
    last4: z.string().openapi({ description: 'The last 4 characters of the key.' }),
    scopes: z.array(z.enum(API_KEY_SCOPES)),
    created_at: z.string(),
    last_used_at: z.string().nullable().openapi({ description: 'The last request made with it, to the minute; null: never used.' }),
    expires_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    revoked: z.boolean(),
    expired: z.boolean(),
    monthly_credit_limit: z.number().int().nullable().openapi({ description: 'Credits its tasks may be charged per calendar month (UTC); null: no limit.' }),
    used_this_month: z.number().int().openapi({ description: 'Credits its tasks were charged this calendar month (UTC), refunds deducted.' }),
  })
  .openapi('ApiKey', { example: KEY_EXAMPLE });

const ApiKeyList = z
  .object({ keys: z.array(ApiKey).openapi({ description: 'Newest first, revoked and expired keys included.' }) })
  .openapi('ApiKeyList', { example: { keys: [KEY_EXAMPLE] } });

const CreateApiKeyRequest = z
  .object({
    name: z.string().trim().min(1, 'Required').max(64, 'At most 64 characters'),
    scopes: z
      .array(z.enum(API_KEY_SCOPES, { error: `Each scope must be one of: ${API_KEY_SCOPES.join(', ')}` }))
      .min(1, 'Choose at least one scope')
      .max(API_KEY_SCOPES.length * 2, 'Too many scopes')
      .openapi({ description: '`generate`: submit tasks and upload files. `read`: /fetch, /fetch-many, /account, webhook deliveries.' }),
    expires_at: z.iso
      .datetime({ offset: true, error: 'Must be an ISO 8601 date and time' })
      .nullish()
      .openapi({ description: 'In the future; omitted or null: never.' }),
    monthly_credit_limit: z
      .number({ error: 'Must be a whole number' })
      .int('Must be a whole number')
      .min(1, 'Must be at least 1')
      .max(MAX_MONTHLY_LIMIT, `At most ${MAX_MONTHLY_LIMIT}`)
      .nullish()
      .openapi({ description: 'Credits per calendar month (UTC) the tasks of this key may be charged; omitted or null: no limit.' }),
  })
  .openapi('CreateApiKeyRequest', {
    example: { name: 'CI pipeline', scopes: ['generate', 'read'], expires_at: '2027-03-01T00:00:00Z', monthly_credit_limit: 5000 },
  });

const CreatedApiKey = ApiKey.extend({
  key: z.string().openapi({ description: 'The key itself (`ak_` + 40 characters). Shown this once: only its hash is stored.' }),
}).openapi('CreatedApiKey', {
  example: { ...KEY_EXAMPLE, last_used_at: null, used_this_month: 0, key: 'ak_7Hq2xR4mT9vL2cN8bW1kS6dF3gJ5hY0pQzX9P9dZ' },
});

const KeyIdParam = z.object({ id: z.uuid({ error: 'Not an API key id' }).openapi({ param: { name: 'id', in: 'path' }, example: EXAMPLE_ID }) });

const errorOf = (status: 404 | 409, description: string, msg: string, code: string) => ({
  [status]: {
    description,
    content: {
      'application/json': {
        schema: z.object({ message: z.string(), errors: z.array(z.object({ msg: z.string(), code: z.string() })) }),
        example: errorExample({ msg, code }),
      },
    },
  },
});

export function apiKeyRoutes(deps: ApiDeps) {
  const router = createRouter();
  const dashboard = { tags: ['API keys'], security: dashboardSecurity, middleware: sessionAuth(deps) };

  // GET /auth/api-keys – the caller's named keys (never the keys themselves)
  router.openapi(
    createRoute({
      method: 'get',
      path: '/auth/api-keys',
      summary: 'List named API keys',
      description: 'Your named keys with their scopes, limits, use this month and state. The primary key is not listed (GET it from the dashboard).',
      ...dashboard,
      responses: { 200: jsonResponse(ApiKeyList, 'The keys.'), ...dashboardErrorResponses },
    }),
    async (c) => {
      c.header('cache-control', 'no-store');
      return c.json(await listApiKeys(deps, c.var.account), 200);
    },
  );

  // POST /auth/api-keys – create a named key; the answer holds the key, once
  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/api-keys',
      summary: 'Create a named API key',
      description: `Makes a key with a name, scopes, an optional expiry and an optional monthly credit limit. The key is in this answer only. At most ${MAX_ACTIVE_KEYS} active keys.`,
      ...dashboard,
      request: { body: jsonBody(CreateApiKeyRequest) },
      responses: {
        201: jsonResponse(CreatedApiKey, 'The new key, with the key itself.'),
        ...bodyErrorResponses,
        ...errorOf(
          409,
          `Already ${MAX_ACTIVE_KEYS} active keys.`,
          `You already have ${MAX_ACTIVE_KEYS} active API keys. Revoke one before creating another.`,
          'conflict',
        ),
        ...dashboardErrorResponses,
      },
    }),
    async (c) => {
      c.header('cache-control', 'no-store'); // the answer carries a credential
      return c.json(await createApiKey(deps, c.var.account, c.req.valid('json')), 201);
    },
  );

  // POST /auth/api-keys/{id}/revoke – refuse the key from the next request on
  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/api-keys/{id}/revoke',
      summary: 'Revoke a named API key',
      description: 'The key is refused from the very next request. Revoking again changes nothing.',
      ...dashboard,
      request: { params: KeyIdParam },
      responses: {
        200: jsonResponse(ApiKey, 'The revoked key.'),
        ...errorOf(404, 'Not one of your keys.', 'API key not found', 'not_found'),
        ...dashboardErrorResponses,
      },
    }),
    async (c) => c.json(await revokeApiKey(deps, c.var.account, c.req.valid('param').id), 200),
  );

  return router;
}
