import { crc32 } from 'node:zlib';
import WebSocket from 'ws';
import type { Catalog, SubscriberRole } from './catalog.ts';
import type { ActiveBinding, ChangeData, ChangeFeed, Subscriber } from './feed.ts';
import { compileFilter, parseSubscriptionParams, type CompiledFilter, type SubscriptionParams } from './filters.ts';
import type { RealtimeLimits, UserConnections } from './limits.ts';
import { encode, decode, type PhxMessage, type Vsn } from './protocol.ts';
import { checkToken, isSubscriberRole, type RealtimeClaims } from './token.ts';

export interface SessionDeps {
  feed: ChangeFeed;
  catalog: Catalog;
  jwtSecret: string;
  log: (line: string) => void;
  limits: RealtimeLimits;
  users: UserConnections;
}

// A socket that stops reading gets cut off instead of buffering the feed without bound.
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
// Realtime re-confirms a channel's token every 5 minutes or at its expiry (confirm_token).
const CONFIRM_TOKEN_MS = 5 * 60_000;

class Channel implements Subscriber {
  role: SubscriberRole = 'anon';
  claimsJson = '{}';
  token = '';
  exp = 0;
  bindings: ActiveBinding[] = [];
  timer?: NodeJS.Timeout;

  constructor(
    readonly session: Session,
    readonly topic: string,
    readonly joinRef: string | null,
  ) {}

  get name() {
    return this.topic.replace(/^realtime:/, '');
  }

  setClaims(token: string, claims: RealtimeClaims, role: SubscriberRole) {
    this.token = token;
    this.role = role;
    this.claimsJson = JSON.stringify(claims);
    this.exp = claims.exp;
  }

  push(payload: { ids: number[]; data: ChangeData }) {
    this.session.send({ joinRef: null, ref: null, topic: this.topic, event: 'postgres_changes', payload });
  }
}

/** One websocket: Phoenix heartbeats and the channels joined over it. */
export class Session {
  private readonly channels = new Map<string, Channel>();
  private chain: Promise<unknown>;
  private disposed = false;
  /** The users this socket is counted for (UserConnections). */
  private readonly users = new Set<string>();
  lastSeen = Date.now();

  constructor(
    private readonly ws: WebSocket,
    private readonly vsn: Vsn,
    private readonly socketToken: string,
    private readonly deps: SessionDeps,
    ready: Promise<unknown>,
    /** The TCP peer's address: who a token without `sub` counts as. */
    private readonly clientAddress = 'unknown',
  ) {
    // messages are handled one at a time, in order, once the change feed listens
    this.chain = ready;
    ws.on('message', (data, isBinary) => {
      this.lastSeen = Date.now();
      if (isBinary) return; // binary frames carry user broadcasts, which this server does not relay
      const msg = decode(this.vsn, data.toString());
      if (!msg) return;
      this.chain = this.chain.then(() => this.handle(msg)).catch((e) => this.deps.log(`realtime: ${e instanceof Error ? e.message : String(e)}`));
    });
  }

  send(m: PhxMessage) {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    if (this.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.deps.log('realtime: dropping a client that does not keep up');
      this.ws.terminate();
      return;
    }
    this.ws.send(encode(this.vsn, m));
  }

  /** Detaches every channel from the feed (the socket is closing or closed). */
  dispose() {
    this.disposed = true;
    for (const ch of this.channels.values()) this.detach(ch);
    this.channels.clear();
    for (const user of this.users) this.deps.users.release(user, this);
    this.users.clear();
  }

  private reply(msg: PhxMessage, status: 'ok' | 'error', response: Record<string, unknown>, joinRef = msg.joinRef) {
    this.send({ joinRef, ref: msg.ref, topic: msg.topic, event: 'phx_reply', payload: { status, response } });
  }

  private async handle(msg: PhxMessage) {
    if (msg.topic === 'phoenix' && msg.event === 'heartbeat') return this.reply(msg, 'ok', {});
    if (msg.event === 'phx_join') return this.join(msg);
    const ch = this.channels.get(msg.topic);
    if (!ch) return this.reply(msg, 'error', { reason: 'unmatched topic' }, null);
    if (msg.event === 'phx_leave') {
      this.reply(msg, 'ok', {}, ch.joinRef);
      return this.close(ch);
    }
    if (msg.event === 'access_token') return this.updateToken(ch, msg.payload.access_token);
    // broadcast and presence are not served locally; Realtime answers neither with a reply
  }

  private async join(msg: PhxMessage) {
    const previous = this.channels.get(msg.topic);
    // a rejoin of a joined topic (reconnect race) replaces the old channel
    if (previous) this.close(previous);
    // Realtime checks its limits before the token (realtime_channel.ex join/3)
    if (this.channels.size >= this.deps.limits.maxChannelsPerClient) return this.reply(msg, 'error', { reason: 'ChannelRateLimitReached: Too many channels' });

    const supplied = msg.payload.access_token ?? msg.payload.user_token;
    const token = typeof supplied === 'string' && supplied && !supplied.startsWith('sb_') ? supplied : this.socketToken;
    const check = await checkToken(token, this.deps.jwtSecret);
    if (!check.ok) return this.reply(msg, 'error', { reason: `${check.code}: ${check.message}` });
    if (!isSubscriberRole(check.claims.role)) {
      return this.reply(msg, 'error', { reason: `Unauthorized: role "${check.claims.role}" may not subscribe to changes` });
    }
    const user = typeof check.claims.sub === 'string' && check.claims.sub ? `sub:${check.claims.sub}` : `${check.claims.role}@${this.clientAddress}`;
    if (this.disposed) return;
    if (!this.deps.users.admit(user, this)) return this.reply(msg, 'error', { reason: 'ConnectionRateLimitReached: Too many connected users' });
    this.users.add(user);

    const ch = new Channel(this, msg.topic, msg.joinRef);
    ch.setClaims(token, check.claims, check.claims.role);
    const config = (msg.payload.config ?? {}) as Record<string, unknown>;
    const entries = Array.isArray(config.postgres_changes) ? (config.postgres_changes as unknown[]) : [];
    const ids = bindingIds(entries);
    const resolved = entries.length > 0 ? await this.resolve(entries, ids, check.claims.role) : undefined;
    if (this.disposed) return; // the socket went away while the join was checked
    if (resolved && !('error' in resolved)) ch.bindings = resolved.bindings;

    this.channels.set(msg.topic, ch);
    this.armTokenCheck(ch);
    if (ch.bindings.length > 0) this.deps.feed.subscribers.add(ch);
    this.reply(msg, 'ok', {
      postgres_changes: entries.map((e, i) => ({ ...(e && typeof e === 'object' ? e : {}), id: ids[i] })),
    });
    if (resolved) {
      this.send({
        joinRef: ch.joinRef,
        ref: null,
        topic: ch.topic,
        event: 'system',
        payload:
          'error' in resolved
            ? { extension: 'postgres_changes', status: 'error', message: `{:error, ${JSON.stringify(resolved.error)}}`, channel: ch.name }
            : { extension: 'postgres_changes', status: 'ok', message: 'Subscribed to PostgreSQL', channel: ch.name },
      });
    }
  }

  // Parses and checks every binding against the publication; all succeed or the channel gets
  // no changes (Realtime creates the subscriptions in one transaction).
  private async resolve(entries: unknown[], ids: number[], role: SubscriberRole): Promise<{ bindings: ActiveBinding[] } | { error: string }> {
    let tables = await this.deps.catalog.all();
    let refreshed = false;
    const bindings: ActiveBinding[] = [];
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      const parsed = parseSubscriptionParams(entry && typeof entry === 'object' ? (entry as Record<string, unknown>) : {});
      if (!parsed.ok) return { error: parsed.error };
      const p = parsed.params;
      const find = () => [...tables.values()].filter((t) => (p.schema === '*' || t.schema === p.schema) && (p.table === '*' || t.name === p.table));
      let matching = find();
      if (matching.length === 0 && !refreshed) {
        // the table may have joined the publication just now, its DDL notification still on its way
        refreshed = true;
        this.deps.catalog.invalidate();
        tables = await this.deps.catalog.all();
        matching = find();
      }
      if (matching.length === 0) {
        return {
          error: `Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: [${paramsToLog(p)}]`,
        };
      }
      const filters = new Map<string, CompiledFilter[]>();
      try {
        for (const t of matching) {
          filters.set(
            `${t.schema}.${t.name}`,
            p.filters.map((f) => {
              const col = t.byName.get(f.column);
              // only columns the role may select (realtime.subscription_check_filters)
              if (col ? !col.selectable[role] : p.table !== '*') throw new Error(`ERROR P0001 (raise_exception) invalid column for filter ${f.column}`);
              return compileFilter(f, col?.type);
            }),
          );
        }
      } catch (e) {
        return {
          error: `Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: [${paramsToLog(p)}]. Exception: ${e instanceof Error ? e.message : String(e)}`,
        };
      }
      bindings.push({ id: ids[i], event: p.event, schema: p.schema, table: p.table, filters });
    }
    return { bindings };
  }

  private async updateToken(ch: Channel, supplied: unknown) {
    // Realtime ignores null, opaque sb_ keys and the token it already has, and never replies
    if (typeof supplied !== 'string' || !supplied || supplied.startsWith('sb_') || supplied === ch.token) return;
    const check = await checkToken(supplied, this.deps.jwtSecret);
    if (this.channels.get(ch.topic) !== ch) return;
    if (!check.ok) return this.shutdown(ch, check.message);
    if (!isSubscriberRole(check.claims.role)) return this.shutdown(ch, `role "${check.claims.role}" may not subscribe to changes`);
    ch.setClaims(supplied, check.claims, check.claims.role);
    this.armTokenCheck(ch);
  }

  private armTokenCheck(ch: Channel) {
    clearTimeout(ch.timer);
    const wait = Math.max(0, Math.min(ch.exp * 1000 - Date.now(), CONFIRM_TOKEN_MS));
    ch.timer = setTimeout(() => {
      if (this.channels.get(ch.topic) !== ch) return;
      if (ch.exp * 1000 <= Date.now()) this.shutdown(ch, `Token has expired ${Math.floor(Date.now() / 1000 - ch.exp)} seconds ago`);
      else this.armTokenCheck(ch);
    }, wait);
    ch.timer.unref();
  }

  // The channel's process stops: a system error, then Phoenix's phx_close.
  private shutdown(ch: Channel, message: string) {
    this.send({
      joinRef: ch.joinRef,
      ref: null,
      topic: ch.topic,
      event: 'system',
      payload: { extension: 'system', status: 'error', message, channel: ch.name },
    });
    this.close(ch);
  }

  private close(ch: Channel) {
    this.detach(ch);
    if (this.channels.get(ch.topic) === ch) this.channels.delete(ch.topic);
    this.send({ joinRef: ch.joinRef, ref: ch.joinRef, topic: ch.topic, event: 'phx_close', payload: {} });
  }

  private detach(ch: Channel) {
    clearTimeout(ch.timer);
    this.deps.feed.subscribers.delete(ch);
  }
}

// Realtime's ids are :erlang.phash2 of the params (27 bits); any distinct number will do for
// the client, so a hash of the same params, made unique within the channel.
function bindingIds(entries: unknown[]): number[] {
  const used = new Set<number>();
  return entries.map((e) => {
    let id = crc32(JSON.stringify(e ?? null)) & 0x7ffffff;
    while (used.has(id)) id = (id + 1) & 0x7ffffff;
    used.add(id);
    return id;
  });
}

function paramsToLog(p: SubscriptionParams) {
  const filters = p.filters.map((f) => `{${[f.column, f.op, f.value].map((s) => JSON.stringify(s)).join(', ')}}`);
  return `event: ${p.event}, schema: ${p.schema}, table: ${p.table}, filters: [${filters.join(', ')}]`;
}
