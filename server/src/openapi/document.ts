/**
 * @module The OpenAPI 3.1 document, generated from the route schemas of the whole app.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import type { ApiConfig } from '../config.ts';
import { SESSION_HEADER } from '../services/auth/authenticate-session.ts';
import { registerIdempotencyParameter, withIdempotencyAnswers } from './idempotency.ts';
import { API_KEY_SCHEME, SESSION_SCHEME } from './schemas.ts';

export type OpenApiDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

/**
 * Registers the apiKey security scheme on `app` and returns a getter for its document.
 * The document is built on first use, after every route has been mounted, then reused.
 */
export function openApiDocument<E extends Env>(app: OpenAPIHono<E>, config: ApiConfig): () => OpenApiDocument {
  app.openAPIRegistry.registerComponent('securitySchemes', API_KEY_SCHEME, {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'Your API key from the API Keys page, as the raw key or as `Bearer <key>`.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', SESSION_SCHEME, {
    type: 'apiKey',
    in: 'header',
    name: SESSION_HEADER,
    description:
      'The signed-in dashboard session: its Supabase access token. Required, beside the API key, by every call that moves money or changes credentials (plans, top-ups, cards, auto top-up, API keys, webhook URL and signing secret, exports); the API key alone answers 403 session_required.',
  });
  registerIdempotencyParameter(app);
  let document: OpenApiDocument | undefined;
  return () =>
    (document ??= withIdempotencyAnswers(
      app.getOpenAPI31Document({
        openapi: '3.1.0',
        info: {
          title: 'AI media API',
          version: '1.0.0',
          description:
            'The AI media provider API, compatible with the APIFRAME v1 API: put your API key in the Authorization header (raw, or as Bearer), ' +
            'submit a task, then poll POST /fetch (or receive its webhook) until its status is finished or failed. ' +
            'Calls that move money or change credentials (billing, cards, keys, the webhook URL and signing secret, exports) are the dashboard’s: they also need its signed-in session in X-Session-Token. ' +
            'Every error answers { "message", "errors": [{ "msg", "code" }] }, message being errors[0].msg.',
        },
        servers: [{ url: config.publicUrl }],
      }),
    ));
}
