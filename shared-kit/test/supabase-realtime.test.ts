import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { supabaseAliases } from '../mf-shared.ts';
import { RealtimeClient, lazyRealtimeClient } from '../src/supabase-realtime.ts';

// The browser builds alias @supabase/realtime-js to src/supabase-realtime.ts: supabase-js builds
// this client in createClient, and the real one (its own chunk) loads when the first channel opens.

type Listener = { args: unknown[] };

/** A stand-in for realtime-js's RealtimeClient that records what the lazy client hands it. */
function fakeRealtime() {
  const made: FakeClient[] = [];
  class FakeChannel {
    listeners: Listener[] = [];
    subscribed: unknown[] = [];
    constructor(
      readonly topic: string,
      readonly params: unknown,
    ) {}
    on(...args: unknown[]) {
      this.listeners.push({ args });
      return this;
    }
    subscribe(...args: unknown[]) {
      this.subscribed.push(args);
      return this;
    }
    unsubscribe() {
      return Promise.resolve('ok');
    }
  }
  class FakeClient {
    channels: FakeChannel[] = [];
    auth: unknown[] = [];
    removed: FakeChannel[] = [];
    constructor(
      readonly endPoint: string,
      readonly options?: object,
    ) {
      made.push(this);
    }
    channel(topic: string, params?: unknown) {
      const channel = new FakeChannel(topic, params);
      this.channels.push(channel);
      return channel;
    }
    getChannels() {
      return this.channels.filter((c) => !this.removed.includes(c));
    }
    removeChannel(channel: FakeChannel) {
      this.removed.push(channel);
      return Promise.resolve('ok');
    }
    removeAllChannels() {
      this.removed.push(...this.channels);
      return Promise.resolve(this.channels.map(() => 'ok'));
    }
    setAuth(...args: unknown[]) {
      this.auth.push(args);
      return Promise.resolve();
    }
  }
  const load = vi.fn(() => Promise.resolve({ RealtimeClient: FakeClient as never }));
  return { made, load, Lazy: lazyRealtimeClient(load) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('the lazily loaded realtime client', () => {
  it('loads nothing until a channel is opened; tokens set before are handed over once it loads', async () => {
    const { made, load, Lazy } = fakeRealtime();
    const client = new Lazy('ws://localhost/realtime/v1', { params: { apikey: 'anon' } });
    await client.setAuth('token-1');
    await client.setAuth('token-2');
    await settle();
    expect(load).not.toHaveBeenCalled();

    client.channel('mdusers:u1');
    await settle();
    expect(load).toHaveBeenCalledTimes(1);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ endPoint: 'ws://localhost/realtime/v1', options: { params: { apikey: 'anon' } }, auth: [['token-2']] });
  });

  it('replays on/subscribe in order on the real channel, and later calls go straight to it', async () => {
    const { made, Lazy } = fakeRealtime();
    const client = new Lazy('ws://x');
    const onChange = () => undefined;
    const onStatus = () => undefined;
    const channel = client.channel('tasks:t1', { config: {} }) as unknown as { on: (...args: unknown[]) => { subscribe: (cb: unknown) => unknown } };
    channel.on('postgres_changes', { event: 'UPDATE', table: 'tasks' }, onChange).subscribe(onStatus);
    await settle();
    const real = made[0]!.channels[0]!;
    expect(real).toMatchObject({ topic: 'tasks:t1', params: { config: {} } });
    expect(real.listeners).toEqual([{ args: ['postgres_changes', { event: 'UPDATE', table: 'tasks' }, onChange] }]);
    expect(real.subscribed).toEqual([[onStatus]]);

    (channel as unknown as { on: (...args: unknown[]) => unknown }).on('broadcast', { event: 'x' }, onChange);
    expect(real.listeners).toHaveLength(2);
    expect(client.channel('tasks:t2')).toBe(made[0]!.channels[1]);
    await client.setAuth('fresh');
    expect(made[0]!.auth).toEqual([['fresh']]);
  });

  it('one real client however many channels open before it loads', async () => {
    const { made, load, Lazy } = fakeRealtime();
    const client = new Lazy('ws://x');
    client.channel('a').subscribe();
    client.channel('b').subscribe();
    await settle();
    expect(load).toHaveBeenCalledTimes(1);
    expect(made).toHaveLength(1);
    expect(made[0]!.channels.map((c) => c.topic)).toEqual(['a', 'b']);
  });

  it('a channel removed before the client loaded is never opened; one removed after is removed on the real client', async () => {
    const { made, Lazy } = fakeRealtime();
    const client = new Lazy('ws://x');
    const early = client.channel('early').subscribe();
    const kept = client.channel('kept').subscribe();
    expect(await client.removeChannel(early)).toBe('ok');
    expect(client.getChannels()).toEqual([kept]);
    await settle();
    expect(made[0]!.channels.map((c) => c.topic)).toEqual(['kept']);

    await client.removeChannel(kept);
    expect(made[0]!.removed).toEqual([made[0]!.channels[0]]);
  });

  it('is what the browser builds get for @supabase/realtime-js: the name supabase-js imports, aliased', () => {
    const supabaseJs = readFileSync(
      createRequire(import.meta.url)
        .resolve('@supabase/supabase-js')
        .replace(/index\.cjs$/, 'index.mjs'),
      'utf8',
    );
    const line = supabaseJs.split('\n').find((l) => l.startsWith('import {') && l.includes('"@supabase/realtime-js"'));
    expect(line).toContain('RealtimeClient');
    expect(typeof RealtimeClient).toBe('function');
    expect(supabaseAliases['@supabase/realtime-js$']).toMatch(/src[\\/]supabase-realtime\.ts$/);
    expect(supabaseAliases['@supabase/realtime-js/dist/module/index.js$']).toMatch(/realtime-js[\\/]dist[\\/]module[\\/]index\.js$/);
  });
});
