import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { readableBodyLimit } from './http/body-limit.ts';
import { compressJson } from './http/compress.ts';
import type { Db } from './db/index.ts';
import type { LocalSupabaseConfig } from './config.ts';
import type { LocalContext } from './context.ts';
import { DevMailbox } from './mailbox.ts';
import { createAuthApp } from './auth/index.ts';
import { createRestApp } from './rest/index.ts';
import { createRealtime } from './realtime/index.ts';
import { createDevApp, devCorsOrigin } from './dev/index.ts';
import { endSocket, guardHttpServer, requestUrl } from './http/malformed-requests.ts';

export { defaultLocalConfig, type LocalSupabaseConfig, type GithubProviderConfig } from './config.ts';
export { DevMailbox, type MailMessage } from './mailbox.ts';
export { SECRET_KEY as DEFAULT_SECRET_KEY } from './gateway.ts';
export {
  DEFAULT_ALTCHA_HMAC_KEY,
  DEFAULT_ANON_KEY,
  DEFAULT_SERVICE_ROLE_KEY,
  DEFAULT_JWT_SECRET,
  signJwt,
  verifyJwt,
  JwtError,
  type JwtClaims,
} from './keys.ts';
export type { LocalContext } from './context.ts';
export { endSocket, guardHttpServer, requestUrl } from './http/malformed-requests.ts';

export interface LocalSupabase {
  /** The HTTP app: /auth/v1, /rest/v1, and /_dev (mailbox, fake GitHub) when config.embedded. */
  app: Hono;
  fetch: (req: Request) => Response | Promise<Response>;
  mailbox: DevMailbox;
  /** Hooks /realtime/v1/websocket into a Node HTTP server's upgrade event (and answers its malformed requests with 400). */
  attachRealtime(server: Server): void;
  close(): Promise<void>;
}

// CORS as Supabase's gateway answers it: reflect requested headers, expose what the client reads.
const EXPOSE = ['Content-Range', 'Content-Location', 'Content-Type', 'Location', 'Range-Unit', 'X-Supabase-Api-Version', 'X-Total-Count', 'Link'];

/**
 * Local Supabase-compatible services for embedded mode (no Docker, no network): GoTrue,
 * PostgREST and Realtime subsets faithful to what the real supabase-js sends, on one Db.
 */
export function createLocalSupabase(opts: { db: Db; config: LocalSupabaseConfig; log?: (line: string) => void; mailbox?: DevMailbox }): LocalSupabase {
  const log = opts.log ?? ((l: string) => console.log(l));
  const mailbox = opts.mailbox ?? new DevMailbox({ log });
  const ctx: LocalContext = { db: opts.db, config: opts.config, mailbox, log };
  const app = new Hono();
  const devOrigin = devCorsOrigin(opts.config);
  app.use(
    '*',
    cors({
      // /_dev (everyone's magic links) answers the dashboard's origin only, never a reflected one
      origin: (origin, c) => (c.req.path.startsWith('/_dev') ? devOrigin(origin) : origin || '*'),
      allowHeaders: [],
      exposeHeaders: EXPOSE,
      allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      credentials: true,
      maxAge: 86400,
    }),
  );
  // PostgREST and GoTrue refuse huge bodies; so do we (413, not a crash).
  app.use(
    '*',
    // the rest of an oversized body is read first, so clients that write it all before
    // reading (Python's http.client, Node's http) see the 413 instead of a broken pipe
    readableBodyLimit({
      maxSize: 1024 * 1024,
      tooLarge: (c) => c.json({ code: 'PGRST413', message: 'Payload Too Large', details: null, hint: null }, 413, { connection: 'close' }),
    }),
  );
  app.route('/auth/v1', createAuthApp(ctx));
  // gallery and log pages in br/gzip from 1 KiB when accepted (the decoded bodies stay PostgREST's)
  app.use('/rest/v1/*', compressJson());
  app.route('/rest/v1', createRestApp(ctx));
  if (opts.config.embedded) app.route('/_dev', createDevApp(ctx));
  app.get('/', (c) =>
    c.json({
      name: 'local supabase-compatible services',
      auth: '/auth/v1',
      rest: '/rest/v1',
      realtime: '/realtime/v1/websocket',
      ...(opts.config.embedded ? { mailbox: '/_dev/mailbox' } : {}),
    }),
  );
  const realtime = createRealtime(ctx);
  return {
    app,
    fetch: app.fetch,
    mailbox,
    attachRealtime(server: Server) {
      guardHttpServer(server);
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        const url = requestUrl(req.url);
        if (!url) {
          socket.on('error', () => socket.destroy());
          return endSocket(socket, 400);
        }
        if (url.pathname === '/realtime/v1/websocket' || url.pathname === '/realtime/v1/websocket/') {
          realtime.handleUpgrade(req, socket, head);
        } else {
          socket.destroy();
        }
      });
    },
    close: () => realtime.close(),
  };
}
