// Stand-in for @supabase/realtime-js in the browser builds (`supabaseAliases` in ../mf-shared.ts).
// supabase-js constructs its RealtimeClient inside createClient, so realtime-js and its Phoenix
// client (~17 KiB gzip) would load before the first render, while the first channel is only opened
// after it. This RealtimeClient has the same constructor and the methods supabase-js and the apps
// call; the real client is loaded with its own chunk and built (once, with the same options) when
// the first channel is opened. Until then, channels record `on`/`subscribe` and replay them in
// order, `setAuth` is remembered, and removing a channel cancels it. Still one Supabase client and
// one session: supabase-js hands this object the same options and token callback as ever.
import type { RealtimeChannel, RealtimeChannelOptions, RealtimeClient as RealRealtimeClient, RealtimeRemoveChannelResponse } from '@supabase/supabase-js';

type RealModule = { RealtimeClient: new (endPoint: string, options?: object) => RealRealtimeClient };
type Call = { method: 'on' | 'subscribe'; args: unknown[] };

/** A channel opened before the real client loaded; it binds to the real channel once it has. */
class PendingChannel {
  real: RealtimeChannel | null = null;
  removed = false;
  private readonly calls: Call[] = [];

  constructor(
    readonly topic: string,
    readonly params: RealtimeChannelOptions | undefined,
  ) {}

  bind(client: RealRealtimeClient): void {
    if (this.removed || this.real) return;
    const channel = client.channel(this.topic, this.params);
    for (const { method, args } of this.calls) (channel[method] as (...a: unknown[]) => unknown)(...args);
    this.real = channel;
  }

  on(...args: unknown[]): this {
    if (this.real) (this.real.on as (...a: unknown[]) => unknown)(...args);
    else this.calls.push({ method: 'on', args });
    return this;
  }

  subscribe(...args: unknown[]): this {
    if (this.real) (this.real.subscribe as (...a: unknown[]) => unknown)(...args);
    else this.calls.push({ method: 'subscribe', args });
    return this;
  }

  unsubscribe(timeout?: number): ReturnType<RealtimeChannel['unsubscribe']> {
    if (this.real) return this.real.unsubscribe(timeout);
    this.removed = true;
    return Promise.resolve('ok' as const);
  }
}

/** The RealtimeClient class supabase-js builds, loading the real one with `load` on first use. */
export function lazyRealtimeClient(load: () => Promise<RealModule>) {
  return class LazyRealtimeClient {
    private real: RealRealtimeClient | null = null;
    private loading: Promise<RealRealtimeClient> | null = null;
    private pending: PendingChannel[] = [];
    private auth: [token?: string | null] | null = null;

    constructor(
      private readonly endPoint: string,
      private readonly options?: object,
    ) {}

    private start(): Promise<RealRealtimeClient> {
      // From the next task: the render that opened the first channel is on screen first.
      this.loading ??= new Promise((resolve) => setTimeout(resolve, 0)).then(load).then(({ RealtimeClient }) => {
        const real = new RealtimeClient(this.endPoint, this.options);
        this.real = real;
        if (this.auth) void real.setAuth(...this.auth);
        for (const channel of this.pending) channel.bind(real);
        this.pending = [];
        return real;
      });
      return this.loading;
    }

    channel(topic: string, params?: RealtimeChannelOptions): RealtimeChannel {
      if (this.real) return this.real.channel(topic, params);
      const channel = new PendingChannel(topic, params);
      this.pending.push(channel);
      void this.start();
      return channel as unknown as RealtimeChannel;
    }

    getChannels(): RealtimeChannel[] {
      return this.real ? this.real.getChannels() : (this.pending.filter((c) => !c.removed) as unknown as RealtimeChannel[]);
    }

    removeChannel(channel: RealtimeChannel): Promise<RealtimeRemoveChannelResponse> {
      const target = channel as unknown as RealtimeChannel | PendingChannel;
      if (target instanceof PendingChannel) {
        if (target.real && this.real) return this.real.removeChannel(target.real);
        target.removed = true;
        this.pending = this.pending.filter((c) => c !== target);
        return Promise.resolve('ok');
      }
      return this.real ? this.real.removeChannel(target) : Promise.resolve('ok');
    }

    removeAllChannels(): Promise<RealtimeRemoveChannelResponse[]> {
      if (this.real) return this.real.removeAllChannels();
      const removed = this.pending.map((c) => {
        c.removed = true;
        return 'ok' as const;
      });
      this.pending = [];
      return Promise.resolve(removed);
    }

    setAuth(token?: string | null): Promise<void> {
      if (this.real) return this.real.setAuth(token);
      this.auth = [token];
      return Promise.resolve();
    }
  };
}

export const RealtimeClient = lazyRealtimeClient(
  () =>
    // @ts-expect-error: a bundler-only path (mf-shared.ts aliases it to the real realtime-js; shared-kit does not depend on it)
    import('@supabase/realtime-js/dist/module/index.js') as Promise<RealModule>,
);
