/**
 * @module The webhook console's calls (API Keys screen): the account signing secret (read,
 * rotate), which needs the dashboard session, and the recent deliveries with their attempts,
 * Resend, Send test event (limited per account) and Resume of an endpoint the circuit breaker
 * paused, API-key authenticated like the other account calls. Everything is the caller's own
 * (webhooks/console.ts).
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
import { getWebhookEvents, updateWebhookEvents } from '../services/account/webhook-events.ts';
import { DELIVERY_STATUSES } from '../webhooks/delivery-repository.ts';
import { WEBHOOK_EVENT_NAMES } from '../webhooks/webhook-events.ts';
import { WebhookEvents } from './task-schemas.ts';
import {
  listPausedEndpoints,
  listRecentDeliveries,
  readSigningSecret,
  resendDelivery,
  resumeEndpoint,
  rotateSigningSecret,
  sendTestEvent,
  TEST_EVENT_LIMITS,
} from '../webhooks/console.ts';

const EXAMPLE_ID = '0b6f2d1e-5c4a-4e8b-9a7d-3f2c1b0a9e8d';
const EXAMPLE_TASK = '7d3e1c2b-8a9f-4b6e-a5d4-c3b2a1f0e9d8';

const SigningSecretResponse = z
  .object({
    secret: z.string().openapi({ description: 'The current signing secret, `whsec_` + base64: pass it as is to a Standard Webhooks library.' }),
    created_at: z.string().openapi({ description: 'When the current secret was made (first use or the last rotation).' }),
    previous_secret: z.string().nullable().openapi({ description: 'The secret the last rotation replaced, while it still signs (24 h); else null.' }),
    previous_expires_at: z.string().nullable().openapi({ description: 'When the previous secret stops signing.' }),
  })
  .openapi('WebhookSigningSecret', {
    example: {
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7H8u9Xg2Gkk=',
      created_at: '2026-11-24T07:30:00.000Z',
      previous_secret: null,
      previous_expires_at: null,
    },
  });

const Attempt = z.object({
  attempt: z.number().int(),
  status_code: z.number().int().nullable().openapi({ description: 'null when no HTTP answer came (refused, timeout, connection error).' }),
  latency_ms: z.number().int(),
  response_excerpt: z.string().nullable().openapi({ description: "The first 500 characters of the receiver's answer." }),
  error: z.string().nullable(),
  at: z.string(),
});

const Delivery = z.object({
  id: z.string().openapi({ description: 'Also the `webhook-id` header, the same on every attempt and resend.' }),
  event: z.enum(['task.progress', 'task.completed', 'task.failed', 'webhook.test']),
  task_id: z.string().nullable().openapi({ description: 'null for a test event.' }),
  url: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempt_count: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  latency_ms: z.number().int().nullable().openapi({ description: "The latest attempt's latency." }),
  next_attempt_at: z.string().nullable().openapi({ description: 'When the next attempt is due (pending only).' }),
  delivered_at: z.string().nullable(),
  created_at: z.string(),
  payload: z.unknown().openapi({ description: 'The body sent: the task as POST /fetch answered it then.' }),
  attempts: z.array(Attempt),
});

const PausedEndpoint = z.object({
  url: z.string(),
  consecutive_failures: z.number().int().openapi({ description: 'Failed attempts in a row (timeouts, connection errors, non-2xx) that paused it.' }),
  paused_until: z.string().openapi({ description: 'When its deliveries resume on their own; `POST /auth/webhook-endpoint/resume` does it now.' }),
  last_error: z.string().nullable(),
  reason: z.string().openapi({ description: 'For people, e.g. "Paused after 5 failures in a row; resumes at …".' }),
});

const DeliveriesResponse = z
  .object({
    deliveries: z.array(Delivery),
    next_before: z.string().nullable().openapi({ description: 'Pass as `before` for the next (older) page; null on the last page.' }),
    paused_endpoints: z.array(PausedEndpoint).openapi({
      description:
        'Your webhook URLs paused by the circuit breaker after failing repeatedly: their pending deliveries wait (no attempt is counted) until the pause ends or you resume them.',
    }),
  })
  .openapi('WebhookDeliveries', {
    example: {
      deliveries: [
        {
          id: EXAMPLE_ID,
          event: 'task.completed',
          task_id: EXAMPLE_TASK,
          url: 'https://example.com/hooks/aimedia',
          status: 'delivered',
          attempt_count: 1,
          last_status_code: 200,
          last_error: null,
          latency_ms: 84,
          next_attempt_at: null,
          delivered_at: '2026-11-24T07:31:02.000Z',
          created_at: '2026-11-24T07:31:01.000Z',
          payload: { task_id: EXAMPLE_TASK, status: 'finished', percentage: '100' },
          attempts: [{ attempt: 1, status_code: 200, latency_ms: 84, response_excerpt: 'ok', error: null, at: '2026-11-24T07:31:02.000Z' }],
        },
      ],
      next_before: null,
      paused_endpoints: [],
    },
  });

const DeliveriesQuery = z.object({
  status: z.enum(DELIVERY_STATUSES).optional().openapi({ description: 'Only deliveries in this status.' }),
  limit: z.coerce.number().int().min(1).max(100).default(50).openapi({ description: 'At most this many (1–100, default 50).' }),
  before: z.uuid().optional().openapi({ description: 'The `next_before` of the page before.' }),
});

const QueuedResponse = z.object({ id: z.string(), status: z.literal('pending') }).openapi('WebhookResend', { example: { id: EXAMPLE_ID, status: 'pending' } });

const TestEventResponse = z
  .object({ id: z.string().openapi({ description: 'The new delivery (event webhook.test).' }), url: z.string() })
  .openapi('WebhookTestEvent', { example: { id: EXAMPLE_ID, url: 'https://example.com/hooks/aimedia' } });

const PausedEndpointsResponse = z.object({ paused_endpoints: z.array(PausedEndpoint) }).openapi('WebhookPausedEndpoints', {
  example: {
    paused_endpoints: [
      {
        url: 'https://example.com/hooks/aimedia',
        consecutive_failures: 5,
        paused_until: '2026-11-28T06:01:00.000Z',
        last_error: 'timeout after 10000 ms',
        reason: 'Paused after 5 failures in a row; resumes at 2026-11-28T06:01:00.000Z',
      },
    ],
  },
});

const ResumeBody = z
  .object({
    url: z.string().max(2048).openapi({ description: 'The paused endpoint (`paused_endpoints[].url`).', example: 'https://example.com/hooks/aimedia' }),
  })
  .openapi('WebhookEndpointResumeRequest', { example: { url: 'https://example.com/hooks/aimedia' } });

const ResumeResponse = z
  .object({ url: z.string(), resumed: z.number().int().openapi({ description: 'Waiting deliveries made due now.' }) })
  .openapi('WebhookEndpointResume', { example: { url: 'https://example.com/hooks/aimedia', resumed: 3 } });

const WebhookEventsSetting = z
  .object({
    webhook_events: z
      .array(z.enum(WEBHOOK_EVENT_NAMES))
      .nullable()
      .openapi({ description: 'The events your account webhook is sent (`progress`, `completed`, `failed`); null: every event.' }),
  })
  .openapi('WebhookEventsSetting', { example: { webhook_events: ['completed', 'failed'] } });

const UpdateWebhookEventsRequest = z
  .object({
    events: WebhookEvents.openapi({
      description:
        "The events to send: `progress`, `completed`, `failed` (or their `task.`-prefixed names). null or omitted: every event (the default); `[]`: none. A request's own `webhook_events` replaces this filter for its task. `webhook.test` is always sent.",
      example: ['completed', 'failed'],
    }),
  })
  .openapi('UpdateWebhookEventsRequest', { example: { events: ['completed', 'failed'] } });

const errorOf = (status: 400 | 404 | 409 | 429, description: string) => ({
  [status]: {
    description,
    content: { 'application/json': { schema: z.object({ message: z.string(), errors: z.array(z.object({ msg: z.string(), code: z.string() })) }) } },
  },
});

export function webhookConsoleRoutes(deps: ApiDeps) {
  const router = createRouter();
  const authed = { security: apiKeySecurity, middleware: apiKeyAuth(deps), tags: ['Webhooks'] };
  // the deliveries list is a read; Resend and the test event stay for the primary key (apiKeyAuth's default)
  const reader = { security: apiKeySecurity, middleware: apiKeyAuth(deps, 'read'), tags: ['Webhooks'] };
  // the signing secret is a credential (whoever reads it can forge deliveries): the dashboard session only
  const dashboard = { security: dashboardSecurity, middleware: sessionAuth(deps), tags: ['Webhooks'] };

  router.openapi(
    createRoute({
      method: 'get',
      path: '/auth/webhook-signing-secret',
      summary: 'Your webhook signing secret',
      description: 'The secret that signs deliveries to your account webhook URL (made on first use), and during a rotation the one it replaced.',
      ...dashboard,
      responses: { 200: jsonResponse(SigningSecretResponse, 'The signing secret.'), ...dashboardErrorResponses },
    }),
    async (c) => {
      c.header('cache-control', 'no-store'); // a secret: never kept by a cache
      return c.json(await readSigningSecret(deps.db, c.var.account.id, new Date()), 200);
    },
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/webhook-signing-secret/rotate',
      summary: 'Rotate the webhook signing secret',
      description:
        'Makes a new signing secret. The replaced one keeps signing beside it for 24 hours (two `v1,` signatures in `webhook-signature`), then it is dropped.',
      ...dashboard,
      responses: { 200: jsonResponse(SigningSecretResponse, 'The new secret and the replaced one.'), ...dashboardErrorResponses },
    }),
    async (c) => {
      c.header('cache-control', 'no-store');
      return c.json(await rotateSigningSecret(deps.db, c.var.account.id, new Date()), 200);
    },
  );

  // GET /auth/webhook-events – the account webhook's event filter
  router.openapi(
    createRoute({
      method: 'get',
      path: '/auth/webhook-events',
      summary: 'Your webhook event filter',
      description: 'Which task events your account webhook is sent; null means every event (`task.progress`, `task.completed`, `task.failed`).',
      ...reader,
      responses: { 200: jsonResponse(WebhookEventsSetting, 'The filter.'), ...authedErrorResponses },
    }),
    async (c) => c.json(await getWebhookEvents(deps, c.var.account), 200),
  );

  // POST /auth/webhook-events – set the account webhook's event filter
  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/webhook-events',
      summary: 'Set the webhook event filter',
      description:
        "Chooses the task events your webhooks are sent; the others are dropped before they are stored, so they never appear among the deliveries. Applies to tasks whose request names no `webhook_events`, whether their webhooks go to the account URL or a request's `webhook_url`.",
      ...dashboard,
      request: { body: jsonBody(UpdateWebhookEventsRequest, false) },
      responses: { 200: jsonResponse(WebhookEventsSetting, 'The stored filter.'), ...bodyErrorResponses, ...dashboardErrorResponses },
    }),
    async (c) => c.json(await updateWebhookEvents(deps, c.var.account, c.req.valid('json').events), 200),
  );

  router.openapi(
    createRoute({
      method: 'get',
      path: '/auth/webhook-deliveries',
      summary: 'Recent webhook deliveries',
      description: 'Your deliveries, newest first, each with its payload and every attempt (status code, latency, response excerpt).',
      ...reader,
      request: { query: DeliveriesQuery },
      responses: { 200: jsonResponse(DeliveriesResponse, 'A page of deliveries.'), ...errorOf(400, 'An invalid filter.'), ...authedErrorResponses },
    }),
    async (c) => c.json(await listRecentDeliveries(deps.db, c.var.account.id, c.req.valid('query')), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/webhook-deliveries/{id}/resend',
      summary: 'Resend a webhook delivery',
      description:
        'Sends the delivery again now, with the same `webhook-id` and body, signed with the current secret(s). If that attempt fails the retry schedule goes on.',
      ...authed,
      request: { params: z.object({ id: z.uuid().openapi({ example: EXAMPLE_ID }) }) },
      responses: {
        200: jsonResponse(QueuedResponse, 'Queued: a dispatcher sends it within a second or so.'),
        ...errorOf(404, 'No such delivery of yours.'),
        ...errorOf(409, 'Being sent right now, or superseded by a newer event.'),
        ...authedErrorResponses,
      },
    }),
    async (c) => c.json(await resendDelivery(deps.db, c.var.account.id, c.req.valid('param').id, new Date()), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/webhook-test',
      summary: 'Send a test event',
      description: `Sends a \`webhook.test\` event to your account webhook URL, signed like every delivery. At most ${TEST_EVENT_LIMITS.perMinute} a minute and ${TEST_EVENT_LIMITS.pending} waiting to be delivered at once; beyond that the answer is 429 \`too_many_requests\`.`,
      ...authed,
      responses: {
        200: jsonResponse(TestEventResponse, 'Queued: a dispatcher sends it within a second or so.'),
        ...errorOf(400, 'No webhook URL is set.'),
        ...errorOf(429, `Over the test-event limit (${TEST_EVENT_LIMITS.perMinute} a minute, ${TEST_EVENT_LIMITS.pending} waiting).`),
        ...authedErrorResponses,
      },
    }),
    async (c) => c.json(await sendTestEvent(deps.db, c.var.account.id, new Date()), 200),
  );

  router.openapi(
    createRoute({
      method: 'get',
      path: '/auth/webhook-endpoints/paused',
      summary: 'Paused webhook endpoints',
      description:
        'Your webhook URLs the circuit breaker paused after failing repeatedly (the same list as `paused_endpoints` of the deliveries): their pending deliveries wait, no attempt counted, until the pause ends or you resume them.',
      ...reader,
      responses: { 200: jsonResponse(PausedEndpointsResponse, 'The endpoints paused now (often none).'), ...authedErrorResponses },
    }),
    async (c) => c.json(await listPausedEndpoints(deps.db, c.var.account.id, new Date()), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/webhook-endpoint/resume',
      summary: 'Resume a paused webhook endpoint',
      description:
        'Closes the circuit breaker of one of your webhook URLs (paused after failing repeatedly): its waiting deliveries are sent now, and failures count from zero again.',
      ...authed,
      request: { body: { required: true, content: { 'application/json': { schema: ResumeBody } } } },
      responses: {
        200: jsonResponse(ResumeResponse, 'Resumed: a dispatcher sends its deliveries within a second or so.'),
        ...errorOf(404, 'No deliveries of yours went to this URL.'),
        ...authedErrorResponses,
      },
    }),
    async (c) => c.json(await resumeEndpoint(deps.db, c.var.account.id, c.req.valid('json').url, new Date()), 200),
  );

  return router;
}
