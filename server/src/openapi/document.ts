/**
 * @module The OpenAPI 3.1 document, generated from the route schemas of the whole app.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import type { ApiConfig } from '../config.ts';
import { API_KEY_SCHEME } from './schemas.ts';

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
  let document: OpenApiDocument | undefined;
  return () =>
    (document ??= app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: {
        title: 'AI media API',
        version: '1.0.0',
        description:
          'The AI media provider API, compatible with the APIFRAME v1 API: put your API key in the Authorization header (raw, or as Bearer), ' +
          'submit a task, then poll POST /fetch (or receive its webhook) until its status is finished or failed. ' +
          'Every error answers { "message", "errors": [{ "msg", "code" }] }, message being errors[0].msg.',
      },
      servers: [{ url: config.publicUrl }],
    }));
}
