/**
 * @module Account calls (spec §7) under /auth/*: API key rotation, webhook URL, onboarding
 * status, referral (all POST); and GET /account, the APIFRAME v1 account summary. API-key
 * authenticated, except key rotation and the webhook URL, which need the dashboard session.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { apiKeyAuth } from '../middleware/api-key-auth/index.ts';
import { sessionAuth } from '../middleware/session-auth/index.ts';
import {
  apiKeySecurity,
  authedErrorResponses,
  bodyErrorResponses,
  dashboardErrorResponses,
  dashboardSecurity,
  jsonBody,
  jsonResponse,
} from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import { completeOnboarding } from '../services/account/complete-onboarding.ts';
import { getAccountInfo } from '../services/account/get-account-info.ts';
import { recordReference } from '../services/account/record-reference.ts';
import { rotateApiKey } from '../services/account/rotate-api-key.ts';
import { updateWebhookUrl } from '../services/account/update-webhook-url.ts';
import { MAX_WEBHOOK_URL_LENGTH } from '../services/account/webhook-url.ts';

const ApiKeyResponse = z
  .object({ api_key: z.string().openapi({ description: 'The new key. The previous key is refused from now on.' }) })
  .openapi('ApiKeyResponse', { example: { api_key: '3f1c9a7e5b2d4c6e8a0b1d3f5e7a9c2b4d6f8e0a1c3e5b7d9f2a4c6e8b0d1f3a' } });

const UpdateWebhookUrlRequest = z
  .object({
    url: z
      .string()
      .nullish()
      .openapi({
        description: `http:// or https:// URL (at most ${MAX_WEBHOOK_URL_LENGTH} characters). Blank, null or omitted removes the webhook.`,
      }),
  })
  .openapi('UpdateWebhookUrlRequest', { example: { url: 'https://example.com/hooks/aimedia' } });

const WebhookUrlResponse = z
  .object({ integration_webhook_url: z.string().nullable() })
  .openapi('WebhookUrlResponse', { example: { integration_webhook_url: 'https://example.com/hooks/aimedia' } });

const OnboardingStatusResponse = z.object({ onboarded: z.boolean() }).openapi('OnboardingStatusResponse', { example: { onboarded: true } });

const RecordReferenceRequest = z
  .object({
    reference: z
      .string({ error: (issue) => (issue.input === undefined ? 'Required' : 'Must be a string') })
      .trim()
      .min(1, 'Required')
      .max(100, 'At most 100 characters')
      .regex(/^[A-Za-z0-9._-]+$/, 'Only letters, digits, ".", "_" and "-" are allowed')
      .openapi({ description: 'The referral code the user arrived with.' }),
  })
  .openapi('RecordReferenceRequest', { example: { reference: 'partner_42' } });

const RecordReferenceResponse = z
  .object({
    recorded: z.boolean().openapi({ description: 'false when a reference was already recorded (it is never overwritten).' }),
    referral_id: z.string().nullable(),
  })
  .openapi('RecordReferenceResponse', { example: { recorded: true, referral_id: 'partner_42' } });

const AccountInfoResponse = z
  .object({
    email: z.string(),
    credits: z.number().int().openapi({ description: 'The balance now.' }),
    total_images: z.number().int().openapi({
      description:
        "Images your finished generations delivered, archived tasks included: a grid's four images count 4, an upscale, faceswap or flux image 1, an AI photo generation each photo; AI photo uploads and trainings (your own photos) and failed tasks do not count.",
    }),
    plan: z.string().openapi({ description: 'basic, starter, growth, scale1, scale2, scale3, scale-c1; zero without a subscription.' }),
  })
  .openapi('AccountInfoResponse', { example: { email: 'ada@example.com', credits: 1240, total_images: 352, plan: 'starter' } });

export function accountRoutes(deps: ApiDeps) {
  const router = createRouter();
  const authed = { security: apiKeySecurity, middleware: apiKeyAuth(deps) };
  // GET /account is a read; the other key calls stay for the primary key (apiKeyAuth's default)
  const reader = { security: apiKeySecurity, middleware: apiKeyAuth(deps, 'read') };
  // changing a credential (the key, where results are posted) needs the signed-in dashboard session
  const dashboard = { security: dashboardSecurity, middleware: sessionAuth(deps) };

  // GET /account – who the key belongs to, the balance, the plan and how many images it made (APIFRAME v1)
  router.openapi(
    createRoute({
      method: 'get',
      path: '/account',
      tags: ['Account'],
      summary: 'Account info',
      description: 'Your email, credit balance, plan and the number of images your tasks have generated.',
      ...reader,
      responses: { 200: jsonResponse(AccountInfoResponse, 'The account.'), ...authedErrorResponses },
    }),
    async (c) => c.json(await getAccountInfo(deps, c.var.account), 200),
  );

  // POST /auth/revokeAndCreateNewAPIKey – replace the caller's API key
  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/revokeAndCreateNewAPIKey',
      tags: ['Account'],
      summary: 'Rotate the API key',
      description: 'Creates a new API key and revokes the current one immediately.',
      ...dashboard,
      responses: { 200: jsonResponse(ApiKeyResponse, 'The new API key.'), ...dashboardErrorResponses },
    }),
    async (c) => c.json(await rotateApiKey(deps, c.var.account), 200),
  );

  // POST /auth/updateWebhookURL – set or remove the integration webhook URL
  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/updateWebhookURL',
      tags: ['Account'],
      summary: 'Set or remove the webhook URL',
      description: 'Task results are posted to this URL. Send a blank or no url to remove it.',
      ...dashboard,
      request: { body: jsonBody(UpdateWebhookUrlRequest, false) },
      responses: {
        200: jsonResponse(WebhookUrlResponse, 'The stored webhook URL (null when removed).'),
        ...bodyErrorResponses,
        ...dashboardErrorResponses,
      },
    }),
    async (c) => c.json(await updateWebhookUrl(deps, c.var.account, c.req.valid('json').url), 200),
  );

  // POST /auth/update-onboarding-status – mark onboarding as done
  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/update-onboarding-status',
      tags: ['Account'],
      summary: 'Mark onboarding as done',
      description: 'Idempotent. Signed-in users who are onboarded land on the dashboard instead of the wizard.',
      ...authed,
      responses: { 200: jsonResponse(OnboardingStatusResponse, 'The new onboarding state.'), ...authedErrorResponses },
    }),
    async (c) => c.json(await completeOnboarding(deps, c.var.account), 200),
  );

  // POST /auth/recordReference – remember who referred the caller (first call wins)
  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/recordReference',
      tags: ['Account'],
      summary: 'Record a referral',
      description: 'Stores the referral code once per user; later calls do not overwrite it.',
      ...authed,
      request: { body: jsonBody(RecordReferenceRequest) },
      responses: {
        200: jsonResponse(RecordReferenceResponse, 'Whether this call recorded the reference.'),
        ...bodyErrorResponses,
        ...authedErrorResponses,
      },
    }),
    async (c) => c.json(await recordReference(deps, c.var.account, c.req.valid('json').reference), 200),
  );

  return router;
}
