import type { LocalSupabaseConfig } from '../config.ts';

/**
 * Per-client caps of the local Realtime. Set through the local services' config as
 * `realtime: { maxChannelsPerClient, maxConnectionsPerUser }` (either may be left out).
 */
export interface RealtimeLimits {
  /**
   * Channels one WebSocket may have joined at once; the next join is answered
   * "ChannelRateLimitReached: Too many channels". Realtime's TENANT_MAX_CHANNELS_PER_CLIENT,
   * default 100 (supabase/realtime config/runtime.exs, realtime_channel.ex limit_channels).
   */
  maxChannelsPerClient: number;
  /**
   * WebSockets with joined channels per user: the `sub` claim of the join's token, or for a
   * token without `sub` (the anon key) its role and the client's address. The next socket's
   * join is answered "ConnectionRateLimitReached: Too many connected users", Realtime's answer
   * to its tenant-wide max_concurrent_users (realtime_channel.ex limit_max_users). Default 20.
   */
  maxConnectionsPerUser: number;
}

export const DEFAULT_REALTIME_LIMITS: RealtimeLimits = { maxChannelsPerClient: 100, maxConnectionsPerUser: 20 };

declare module '../config.ts' {
  interface LocalSupabaseConfig {
    /** Realtime's per-client caps (src/realtime/limits.ts); defaults in DEFAULT_REALTIME_LIMITS. */
    realtime?: Partial<RealtimeLimits>;
  }
}

export function realtimeLimits(config: LocalSupabaseConfig): RealtimeLimits {
  const set = config.realtime ?? {};
  const pick = (v: number | undefined, d: number) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : d);
  return {
    maxChannelsPerClient: pick(set.maxChannelsPerClient, DEFAULT_REALTIME_LIMITS.maxChannelsPerClient),
    maxConnectionsPerUser: pick(set.maxConnectionsPerUser, DEFAULT_REALTIME_LIMITS.maxConnectionsPerUser),
  };
}

/** Which sockets each user has joined channels on (Realtime's UsersCounter, per user). */
export class UserConnections {
  private readonly byUser = new Map<string, Set<object>>();

  constructor(private readonly max: number) {}

  /** Counts the socket for the user unless that would pass the cap; a counted socket always passes. */
  admit(user: string, socket: object): boolean {
    const set = this.byUser.get(user) ?? new Set<object>();
    if (set.has(socket)) return true;
    if (set.size >= this.max) return false;
    set.add(socket);
    this.byUser.set(user, set);
    return true;
  }

  release(user: string, socket: object) {
    const set = this.byUser.get(user);
    if (!set) return;
    set.delete(socket);
    if (set.size === 0) this.byUser.delete(user);
  }
}
