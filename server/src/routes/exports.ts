/**
 * @module CSV exports (issue 15): POST /exports makes a one-time download link (API key), and
 * GET /exports/task-logs.csv and /exports/credit-history.csv stream the file to the browser
 * that follows it (services/exports/export-csv.ts explains the stream).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { sessionAuth } from '../middleware/session-auth/index.ts';
import { bodyErrorResponses, dashboardErrorResponses, dashboardSecurity, errorExample, jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import type { ExportKind } from '../repositories/export-repository.ts';
import { CREDIT_HISTORY_COLUMNS, createExportLink, openExport, TASK_LOG_COLUMNS } from '../services/exports/export-csv.ts';

const Names = z.array(z.string().min(1).max(64)).max(100);

const ExportRequest = z
  .object({
    kind: z.enum(['task-logs', 'credit-history']).openapi({ description: 'What to export: your tasks as Task Logs lists them, or your credit history.' }),
    filters: z
      .object({
        statuses: Names.optional().openapi({ description: 'Task statuses to keep (any of them).' }),
        types: Names.optional().openapi({ description: 'Task types to keep (any of them, with prefixes).' }),
        prefixes: Names.optional().openapi({ description: 'Task type prefixes to keep, e.g. "outpaint-".' }),
        task_id: z.uuid('Must be a task id').optional().openapi({ description: 'One task.' }),
      })
      .optional()
      .openapi({ description: 'task-logs only: the Task Logs filters; none exports every task.' }),
  })
  .openapi('ExportRequest', { example: { kind: 'task-logs', filters: { statuses: ['failed'] } } });

const ExportLinkResponse = z
  .object({
    url: z.string().openapi({ description: 'GET it (no Authorization header) within a minute, once, to download the CSV.' }),
    expires_at: z.string().openapi({ description: 'When the link stops working (ISO 8601).' }),
  })
  .openapi('ExportLinkResponse', {
    example: { url: 'https://api.example.com/exports/task-logs.csv?token=Qm9vb…', expires_at: '2026-11-24T08:01:00.000Z' },
  });

const Token = z.object({ token: z.string().max(200).optional().openapi({ description: 'The token of a link from POST /exports.' }) });

const refused = {
  description: 'The link is unknown, expired or already used.',
  content: {
    'application/json': {
      schema: z.object({ message: z.string(), errors: z.array(z.object({ msg: z.string(), code: z.string() })) }),
      example: errorExample({ msg: 'This download link has expired or was already used. Start the export again.', code: 'forbidden' }),
    },
  },
};

function csvRoute(kind: ExportKind, columns: readonly string[]) {
  return createRoute({
    method: 'get',
    path: `/exports/${kind}.csv`,
    tags: ['Exports'],
    summary: kind === 'task-logs' ? 'Download Task Logs as CSV' : 'Download the credit history as CSV',
    description: `Streams the rows newest first (UTF-8 with a byte order mark, CRLF lines, text cells that start with = + - @ prefixed with an apostrophe). Columns: ${columns.join(', ')}.`,
    request: { query: Token },
    responses: { 200: { description: 'The CSV file, streamed.', content: { 'text/csv': { schema: z.string() } } }, 403: refused },
  });
}

export function exportRoutes(deps: ApiDeps) {
  const router = createRouter();

  // POST /exports – a one-time link to download the caller's Task Logs or credit history as CSV
  router.openapi(
    createRoute({
      method: 'post',
      path: '/exports',
      tags: ['Exports'],
      summary: 'Start a CSV export',
      description:
        'Answers a link that downloads the CSV once, within a minute, without the API key (a browser can follow it). Needs the signed-in dashboard session: a whole history leaves the account.',
      security: dashboardSecurity,
      middleware: sessionAuth(deps),
      request: { body: jsonBody(ExportRequest) },
      responses: { 200: jsonResponse(ExportLinkResponse, 'The download link.'), ...bodyErrorResponses, ...dashboardErrorResponses },
    }),
    async (c) => {
      const { kind, filters } = c.req.valid('json');
      return c.json(await createExportLink(deps, c.var.account, kind, filters ?? {}), 200);
    },
  );

  for (const [kind, columns] of [
    ['task-logs', TASK_LOG_COLUMNS],
    ['credit-history', CREDIT_HISTORY_COLUMNS],
  ] as const) {
    // GET /exports/<kind>.csv – the file of a link from POST /exports, streamed
    router.openapi(csvRoute(kind, columns), async (c) => {
      const { fileName, body } = await openExport(deps, kind, c.req.valid('query').token ?? '');
      return c.body(body, 200, {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="${fileName}"`,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      });
    });
  }
  return router;
}
