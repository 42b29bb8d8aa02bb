/**
 * @module The provider API as a Hono app: middleware order, routes, error contract.
 * main.ts serves it; tests call `app.request(...)` in-process.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Db } from '@aim/supabase/db';
import { cors } from 'hono/cors';
import { requestId } from 'hono/request-id';
import { DEFAULT_MAX_BODY_BYTES, type ApiConfig } from './config.ts';
import type { AppEnv } from './context.ts';
import { ApiError } from './errors.ts';
import { consoleLogger, type Logger } from './logger.ts';
import { bodyLimit } from './middleware/body-limit/index.ts';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from './middleware/idempotency/index.ts';
import { errorHandler, notFoundHandler } from './middleware/error-handler/index.ts';
import { drainOrClose } from '@aim/supabase/http';
import { compressJson } from '@aim/supabase/compress';
import { rateLimit, rateLimitsFromEnv, type RateLimits } from './middleware/rate-limit/index.ts';
import type { UploadMemoryBudget } from './middleware/upload-limit/index.ts';
import { requestLog } from './middleware/request-log/index.ts';
import { metricsRoutes } from './observability/metrics-route.ts';
import { openApiDocument } from './openapi/document.ts';
import { createRouter } from './openapi/router.ts';
import { accountRoutes } from './routes/account.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { aiPhotoRoutes, aiPhotoUploadRoutes } from './routes/ai-photos.ts';
import { audioRoutes, audioUploadRoutes } from './routes/audio.ts';
import { billingRoutes, billingSandboxRoutes } from './routes/billing/index.ts';
import { spendingLimitRoutes } from './routes/spending-limits.ts';
import { exportRoutes } from './routes/exports.ts';
import { cancelRoutes } from './routes/cancel.ts';
import { fetchRoutes } from './routes/fetch.ts';
import { pricingRoutes } from './routes/pricing.ts';
import { taskEventRoutes } from './routes/task-events.ts';
import { createTaskEventHub, type TaskEventHub } from './services/task-events/task-event-hub.ts';
import { healthRoutes } from './routes/health.ts';
import { imageModelRoutes } from './routes/image-models.ts';
import { midjourneyProRoutes } from './routes/midjourney-pro.ts';
import { inpaintRoutes, midjourneyV1Routes } from './routes/midjourney-v1.ts';
import { stripeWebhookRoutes } from './routes/stripe-webhook.ts';
import { checkAfterCharge } from './services/billing/auto-topup/trigger.ts';
import { createBilling, type Billing } from './services/billing/billing.ts';
import type { ProviderEnv } from './billing/select-provider.ts';
import { mediaRoutes } from './routes/media.ts';
import { metaRoutes } from './routes/meta.ts';
import { taskRoutes } from './routes/tasks.ts';
import { uploadRoutes } from './routes/upload.ts';
import { videoRoutes } from './routes/video.ts';
import { webhookConsoleRoutes } from './routes/webhooks.ts';
import type { EngineRegistry } from './services/tasks/engine-registry.ts';
import type { MediaStore } from './storage/media-store.ts';
import { withTaskDefaults } from './workers/runtime.ts';
import { SESSION_HEADER } from './services/auth/authenticate-session.ts';

export type { ApiConfig } from './config.ts';
export type { Logger } from './logger.ts';

/**
 * Builds the API. Order matters: the request id comes first so every later line and
 * response (errors included) carries it; CORS answers preflights before auth; the body
 * limit runs before anything reads a body.
 *
 * @example
 * const app = createApiApp({ db, config: { embedded: true, publicUrl: 'http://localhost:8080', corsOrigins: [] } })
 * const res = await app.request('/health')
 */
export function createApiApp(deps: {
  db: Db;
  config: ApiConfig;
  log?: Logger;
  /** Where images are stored (shared with the task worker). Default: disk under <repo>/.data/media. */
  media?: MediaStore;
  /** Which engine (job queue) runs each task kind (shared with the task worker). Default: the local engine. */
  engines?: EngineRegistry;
  /** Billing built by the caller (main.ts shares it with the auto top-up sweep). Default: from the environment. */
  billing?: Billing;
  /** The environment the payment provider is chosen from (default process.env). */
  env?: ProviderEnv;
  /** Request rate limits (middleware/rate-limit). Default: from the environment (RATE_LIMIT_*_PER_MINUTE, TRUST_PROXY). */
  rateLimits?: RateLimits;
  /** Upload bodies held at once (middleware/upload-limit). Default: the process's, from UPLOAD_MEMORY_BUDGET_MB and UPLOAD_CONCURRENCY_PER_ACCOUNT. */
  uploadMemory?: UploadMemoryBudget;
  /** The live task event streams (SSE); main.ts closes it before the server, so open streams end. Default: one of its own. */
  taskEvents?: TaskEventHub;
}): OpenAPIHono<AppEnv> {
  const ctx = { ...deps, log: deps.log ?? consoleLogger() };
  const billing = deps.billing ?? createBilling({ ...ctx, embedded: ctx.config.embedded });
  const tasks = {
    ...ctx,
    ...withTaskDefaults(ctx.config.publicUrl, deps),
    // a charge may take the balance below the user's auto top-up threshold (and low-balance alert)
    afterCharge: (userId: string) => {
      checkAfterCharge(billing, userId).catch((error: unknown) => ctx.log.error('auto top-up check failed', { user_id: userId, error: String(error) }));
    },
  };
  const app = createRouter();

  // a refusal's unread body: drained (so the client reads the answer) by at most a few requests
  // at once, else the answer closes the connection (a flood of big bodies costs no CPU)
  app.use(drainOrClose());
  app.use(requestId());
  app.use(requestLog(ctx.log));
  // JSON answers of 1 KiB or more in br/gzip when accepted; SSE, CSV and media stream as written
  app.use(compressJson());
  app.use(
    cors({
      origin: ctx.config.corsOrigins,
      credentials: true,
      // Last-Event-ID: a browser resuming a task event stream (routes/task-events.ts) with fetch
      allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', SESSION_HEADER, IDEMPOTENCY_HEADER, 'Last-Event-ID'],
      allowMethods: ['GET', 'POST', 'OPTIONS'],
      exposeHeaders: ['X-Request-Id', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', REPLAYED_HEADER],
      maxAge: 600,
    }),
  );
  // per client address before authentication; per key and account in the auth middlewares (one statement a request)
  app.use(rateLimit({ db: ctx.db, log: ctx.log, limits: deps.rateLimits ?? rateLimitsFromEnv() }));
  // before the JSON body limit: they bring their own, sized for an image, for 30 photos and for a song
  // POST /estimate/<create path> before the body limit: the call it dry-runs brings its own (GET /pricing beside it)
  app.route('/', pricingRoutes({ ...tasks, dispatch: async (req) => app.fetch(req), document: () => getDocument() }));
  app.route('/', uploadRoutes(tasks));
  app.route('/', aiPhotoUploadRoutes(tasks));
  app.route('/', audioUploadRoutes(tasks));
  app.route('/', inpaintRoutes(tasks));
  app.use(
    bodyLimit({
      maxSize: ctx.config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      tooLarge: () => new ApiError('payload_too_large', 'Request body is too large'),
    }),
  );

  const getDocument = openApiDocument(app, ctx.config);
  app.route('/', metaRoutes(getDocument));
  app.route('/', healthRoutes({ db: ctx.db, engines: tasks.engines }));
  // GET /metrics: METRICS_TOKEN bearer when set; else open in embedded mode only (observability/metrics-route.ts)
  app.route('/', metricsRoutes({ ...tasks, embedded: ctx.config.embedded, token: process.env.METRICS_TOKEN || undefined }));
  app.route('/', accountRoutes(ctx));
  app.route('/', apiKeyRoutes(ctx));
  app.route('/', webhookConsoleRoutes(ctx));
  app.route('/', billingRoutes(ctx, billing));
  app.route('/', billingSandboxRoutes(ctx, billing));
  app.route('/', spendingLimitRoutes(ctx, billing));
  app.route('/', stripeWebhookRoutes(billing));
  app.route('/', taskRoutes(tasks));
  app.route('/', fetchRoutes(tasks));
  app.route('/', taskEventRoutes({ ...ctx, taskEvents: deps.taskEvents ?? createTaskEventHub(ctx) }));
  app.route('/', cancelRoutes(tasks));
  app.route('/', midjourneyV1Routes(tasks));
  app.route('/', midjourneyProRoutes(tasks));
  app.route('/', imageModelRoutes(tasks));
  app.route('/', aiPhotoRoutes(tasks));
  app.route('/', videoRoutes(tasks));
  app.route('/', audioRoutes(tasks));
  app.route('/', mediaRoutes(tasks));
  app.route('/', exportRoutes(ctx));

  app.onError(errorHandler(ctx.log));
  app.notFound(notFoundHandler);
  return app;
}
