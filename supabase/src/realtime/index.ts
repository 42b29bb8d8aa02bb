import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { LocalContext } from '../context.ts';
import { resolveBearer } from '../gateway.ts';
import { Catalog } from './catalog.ts';
import { ChangeFeed } from './feed.ts';
import { realtimeLimits, UserConnections } from './limits.ts';
import { Session } from './session.ts';
import { checkToken } from './token.ts';
import type { Vsn } from './protocol.ts';

export interface RealtimeServer {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
}

// Phoenix drops a socket that has sent nothing (not even a heartbeat, every 25 s) for this long.
const IDLE_TIMEOUT_MS = 60_000;
const CLOSE_GRACE_MS = 500;

/**
 * The Realtime subset embedded mode needs (supabase-protocol.md §3): Phoenix channels over
 * `ws`, postgres_changes from the local change queue (local/realtime.sql), RLS-checked per
 * subscriber like Realtime's apply_rls.
 */
export function createRealtime(ctx: LocalContext): RealtimeServer {
  const catalog = new Catalog(ctx.db);
  const feed = new ChangeFeed(ctx.db, catalog, ctx.log);
  const ready = feed.start().catch((e) => {
    ctx.log(`realtime: change capture unavailable (is supabase/local/realtime.sql applied?): ${e instanceof Error ? e.message : String(e)}`);
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const sessions = new Map<WebSocket, Session>();
  const limits = realtimeLimits(ctx.config);
  const deps = { feed, catalog, jwtSecret: ctx.config.jwtSecret, log: ctx.log, limits, users: new UserConnections(limits.maxConnectionsPerUser) };
  let closed = false;

  const idle = setInterval(() => {
    const cutoff = Date.now() - IDLE_TIMEOUT_MS;
    for (const [ws, s] of sessions) if (s.lastSeen < cutoff) ws.terminate();
  }, IDLE_TIMEOUT_MS / 4);
  idle.unref();

  return {
    handleUpgrade(req, socket, head) {
      socket.on('error', () => socket.destroy());
      if (closed) return void socket.destroy();
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://localhost');
      } catch {
        return rejectUpgrade(socket, 400, 'Malformed request URL');
      }
      const vsnParam = url.searchParams.get('vsn') ?? '2.0.0';
      if (vsnParam !== '1.0.0' && vsnParam !== '2.0.0') return rejectUpgrade(socket, 400, `Unsupported serializer version ${vsnParam}`);
      const vsn: Vsn = vsnParam;
      const header = req.headers['x-api-key'];
      const apikey = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('apikey');
      // the gateway's mapping of sb_ keys, applied to the query token as Kong does
      const token = resolveBearer(ctx.config, undefined, apikey);
      void checkToken(token, ctx.config.jwtSecret).then((check) => {
        if (closed || socket.destroyed) return void socket.destroy();
        if (!check.ok) return rejectUpgrade(socket, 401, check.message);
        wss.handleUpgrade(req, socket, head, (ws) => {
          const session = new Session(ws, vsn, token!, deps, ready, req.socket.remoteAddress ?? 'unknown');
          sessions.set(ws, session);
          ws.on('close', () => {
            session.dispose();
            sessions.delete(ws);
          });
          ws.on('error', () => ws.terminate());
        });
      });
    },

    async close() {
      closed = true;
      clearInterval(idle);
      const closing = [...wss.clients].map(
        (ws) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
            ws.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
            ws.close(1001, 'server shutting down');
          }),
      );
      await Promise.all(closing);
      for (const s of sessions.values()) s.dispose();
      sessions.clear();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await ready;
      await feed.close();
    },
  };
}

// Realtime answers refused upgrades with a JSON body (user_socket.ex).
function rejectUpgrade(socket: Duplex, status: number, error: string) {
  const body = JSON.stringify({ error });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
