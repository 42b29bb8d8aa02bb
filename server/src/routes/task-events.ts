/**
 * @module Live task events as server-sent events (text/event-stream): GET /tasks/{task_id}/events
 * follows one task to its end, GET /events every task of the account (optionally of some types).
 * Each event is `event: progress | completed | failed`, `id: <task version>`, `data: <the task as
 * POST /fetch shows it>`; a comment line every 15 s keeps proxies from closing an idle
 * stream. Reconnecting with `Last-Event-ID` sends what changed after that id (the current state
 * of each such task). docs/events/README.md has the protocol and clients in four languages.
 *
 * Credentials travel in headers only (the API key in Authorization, or the dashboard session),
 * never in the URL, where logs and proxies would keep them: browsers' EventSource cannot send
 * headers, so clients read the stream with fetch (the docs' samples do).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { ApiDeps, AuthedEnv } from '../context.ts';
import { apiKeyAuth } from '../middleware/api-key-auth/index.ts';
import { sessionAuth } from '../middleware/session-auth/index.ts';
import { apiKeySecurity, authedErrorResponses } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import { SESSION_HEADER } from '../services/auth/authenticate-session.ts';
import { parseLastEventId, type TaskEventHub, type TaskStream, type TaskStreamEvent } from '../services/task-events/task-event-hub.ts';
import { parentErrors, TaskId } from './task-schemas.ts';

/** The reconnection delay the stream asks EventSource-style clients to use. */
const RETRY_MS = 3_000;
const TYPES_MAX = 20;

const encoder = new TextEncoder();

/** One SSE event: its name, id (the task version) and the /fetch view as one JSON data line. */
function formatEvent(event: TaskStreamEvent): string {
  return `event: ${event.event}\nid: ${event.id}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * The response body of a stream: pulled by the client (highWaterMark 0: nothing is read from
 * the database for a client that does not read), heartbeats between events, closed after the
 * last event; a client going away (cancel) closes the task stream and frees its slot.
 */
function sseBody(stream: TaskStream, onError: (error: unknown) => void, heartbeatMs: number): ReadableStream<Uint8Array> {
  const iterator = stream.events()[Symbol.asyncIterator]();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    clearInterval(heartbeat);
    stream.close();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(`retry: ${RETRY_MS}\n: connected\n\n`));
        heartbeat = setInterval(() => {
          try {
            controller.enqueue(encoder.encode(': heartbeat\n\n'));
          } catch {
            stop();
          }
        }, heartbeatMs);
      },
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done) {
            stop();
            controller.close();
          } else controller.enqueue(encoder.encode(formatEvent(next.value)));
        } catch (error) {
          // the client reconnects with Last-Event-ID and gets what it missed
          onError(error);
          stop();
          controller.close();
        }
      },
      cancel: stop,
    },
    { highWaterMark: 0 },
  );
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  // nginx and similar proxies: pass each event on at once instead of buffering the response
  'X-Accel-Buffering': 'no',
  'X-Content-Type-Options': 'nosniff',
};

const LastEventIdHeader = z.object({
  'last-event-id': z.string().max(64).optional().openapi({
    description: 'On reconnect: the id of the last event received. The stream then starts with the current state of every task that changed after it.',
    example: '1042',
  }),
});

const EVENT_STREAM_DESCRIPTION =
  'A text/event-stream. Each event: `event: progress | completed | failed`, `id: <the task version>`, `data: <the task as POST /fetch shows it, one JSON line>`. Lines starting with ":" are heartbeats (every 15 s). `retry: 3000` asks clients to wait 3 s before reconnecting.';

const streamExample = (taskId: string) =>
  [
    'retry: 3000',
    ': connected',
    '',
    'event: progress',
    'id: 1041',
    `data: {"task_id":"${taskId}","task_type":"imagine","status":"processing","percentage":"40",…}`,
    '',
    'event: completed',
    'id: 1042',
    `data: {"task_id":"${taskId}","task_type":"imagine","status":"finished","percentage":"100","image_urls":[…],…}`,
    '',
  ].join('\n');

/** The API key (read or generate scope, as POST /fetch), or the dashboard session when it is sent. */
function keyOrSession(deps: ApiDeps): MiddlewareHandler<AuthedEnv> {
  const byKey = apiKeyAuth(deps, ['read', 'generate']);
  const bySession = sessionAuth(deps);
  return (c, next) => (c.req.header(SESSION_HEADER) ? bySession(c, next) : byKey(c, next));
}

const tooMany = {
  ...authedErrorResponses[429],
  description: `${authedErrorResponses[429].description} Also: more than 10 event streams open at once for the account (code too_many_requests).`,
};

export function taskEventRoutes(deps: ApiDeps & { taskEvents: TaskEventHub }) {
  const router = createRouter();
  const authed = { tags: ['Task events'], security: apiKeySecurity, middleware: keyOrSession(deps) };
  const onError = (error: unknown) => deps.log.error('task event stream failed', { error: String(error) });
  const heartbeatMs = deps.taskEvents.heartbeatMs;

  // GET /tasks/{task_id}/events – one task's events until its terminal one
  router.openapi(
    createRoute({
      method: 'get',
      path: '/tasks/{task_id}/events',
      summary: 'Stream a task’s events (SSE)',
      description:
        'Server-sent events of one of your tasks: first its current state, then `progress` on every change (status, percentage, pictures), then `completed` or `failed`, after which the stream ends. A burst of changes may arrive as one event with the latest state. Reconnect with `Last-Event-ID` to get what you missed; a reconnect after the terminal event answers 204 (EventSource-style clients stop). Counts as one read request against the rate limits when it connects; at most 10 streams per account at once. Send the API key in `Authorization` (EventSource cannot: read the stream with fetch, see docs/events); the dashboard may send its session (X-Session-Token) instead.',
      ...authed,
      request: { params: z.object({ task_id: TaskId('One of your tasks (live or archived).') }), headers: LastEventIdHeader },
      responses: {
        200: { description: EVENT_STREAM_DESCRIPTION, content: { 'text/event-stream': { schema: z.string(), example: streamExample('7a9c…') } } },
        204: { description: 'The task ended and its terminal event was already received (Last-Event-ID): nothing more will come.' },
        ...authedErrorResponses,
        404: parentErrors[404],
        429: tooMany,
      },
    }),
    async (c) => {
      const { task_id } = c.req.valid('param');
      const lastEventId = parseLastEventId(c.req.valid('header')['last-event-id']);
      const stream = await deps.taskEvents.open(c.var.account, { taskId: task_id, lastEventId });
      if (stream === 'ended') return c.body(null, 204);
      return c.body(sseBody(stream, onError, heartbeatMs), 200, SSE_HEADERS);
    },
  );

  // GET /events – every task of the account, as it changes
  router.openapi(
    createRoute({
      method: 'get',
      path: '/events',
      summary: 'Stream all your tasks’ events (SSE)',
      description:
        'Server-sent events of every task of your account as it changes (created, progress, completed, failed), the same events as GET /tasks/{task_id}/events; open until you close it. `type` keeps only some task types. Without `Last-Event-ID` it starts with the next change; with it, with the current state of every task that changed after that id (of the last 2 days, at most 500), and of those that changed in the last 30 s (a change with a lower id may commit after one with a higher id), so the latest state of such a task may come twice. Same authentication, rate limit and stream cap as the one-task stream.',
      ...authed,
      request: {
        query: z.object({
          type: z
            .string()
            .max(1000)
            .optional()
            .openapi({
              description: `Task types to keep, comma-separated (e.g. imagine,upscale#1; at most ${TYPES_MAX}). Default: all.`,
              example: 'imagine,faceswap',
            }),
        }),
        headers: LastEventIdHeader,
      },
      responses: {
        200: { description: EVENT_STREAM_DESCRIPTION, content: { 'text/event-stream': { schema: z.string(), example: streamExample('7a9c…') } } },
        ...authedErrorResponses,
        429: tooMany,
      },
    }),
    async (c) => {
      const types = c.req
        .valid('query')
        .type?.split(',')
        .map((t) => t.trim())
        .filter(Boolean)
        .slice(0, TYPES_MAX);
      const lastEventId = parseLastEventId(c.req.valid('header')['last-event-id']);
      const stream = await deps.taskEvents.open(c.var.account, { types: types?.length ? types : null, lastEventId });
      if (stream === 'ended') return c.body(null, 204);
      return c.body(sseBody(stream, onError, heartbeatMs), 200, SSE_HEADERS);
    },
  );

  return router;
}
