/**
 * @module Public routes about the API itself: health, the OpenAPI document, the docs page.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { OpenApiDocument } from '../openapi/document.ts';
import { renderDocsPage } from '../openapi/docs-page.ts';
import { jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';

const HealthResponse = z.object({ ok: z.literal(true) }).openapi('HealthResponse', { example: { ok: true } });

export function metaRoutes(getDocument: () => OpenApiDocument) {
  const router = createRouter();

  // GET /health – liveness probe (no database round trip, so it stays cheap under load)
  router.openapi(
    createRoute({
      method: 'get',
      path: '/health',
      tags: ['Meta'],
      summary: 'Health check',
      responses: { 200: jsonResponse(HealthResponse, 'The server is up.') },
    }),
    (c) => c.json({ ok: true as const }, 200),
  );

  // GET /openapi.json – the OpenAPI 3.1 document of every route
  router.get('/openapi.json', (c) => c.json(getDocument()));

  // GET /docs – the same document as a readable page
  router.get('/docs', (c) => c.html(renderDocsPage(getDocument())));

  return router;
}
