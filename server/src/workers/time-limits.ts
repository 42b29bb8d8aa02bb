/**
 * @module How long one job may run (per attempt, from its claim) before the worker stops it:
 * its AbortSignal fires, a worker thread running it is terminated, and the task fails with
 * TIME_LIMIT_MESSAGE and is refunded once (task-worker.ts). A hung engine then no longer holds
 * credits, a slot and a lease forever (the worker's heartbeat renews every lease it holds, so
 * a stuck job would otherwise look alive).
 *
 * Limits are per engine (the job queue), each above the engine's own deadline so that a slow
 * but legitimate run ends by the engine's own handling (a hosted engine cancels its upstream
 * prediction and may retry) and the limit only catches what hangs:
 *
 * - `local` (procedural/sharp pictures: well under a second per picture): 60 s.
 * - `local-face` (a faceswap is seconds; an AI photo upload or training of 10–30 photos and a
 *   generation of several photos run detection per photo on one core): 5 minutes.
 * - `local-video` (about 0.3–0.8 s per video second, four clips for a Midjourney video) and
 *   `local-audio` (about 0.1–0.2 s per audio second, two songs a call): 5 minutes.
 * - `midjourney-proxy`, `replicate-faceswap`, `replicate-flux`, `replicate-ideogram`: the
 *   engines give up watching after 10 minutes; 15 minutes.
 * - `replicate-video`, `replicate-audio`: the engines give up after 20 minutes; 25 minutes.
 * - `replicate-lora` (a LoRA training is cancelled after 2 hours, after a zip upload of up to
 *   5 minutes): 2.5 hours.
 * - any other engine: 15 minutes.
 *
 * Environment: JOB_TIME_LIMIT_SECONDS (every engine without its own setting) and
 * JOB_TIME_LIMIT_SECONDS_<ENGINE> (one engine, its name upper-cased with `-` as `_`, e.g.
 * JOB_TIME_LIMIT_SECONDS_LOCAL_VIDEO=600; wins), positive whole numbers of seconds.
 */

/** Built-in limits by engine name, in seconds (see the module comment for the reasons). */
const DEFAULT_TIME_LIMIT_SECONDS: Readonly<Record<string, number>> = {
  local: 60,
  'local-face': 5 * 60,
  'local-video': 5 * 60,
  'local-audio': 5 * 60,
  'midjourney-proxy': 15 * 60,
  'replicate-faceswap': 15 * 60,
  'replicate-flux': 15 * 60,
  'replicate-ideogram': 15 * 60,
  'replicate-video': 25 * 60,
  'replicate-audio': 25 * 60,
  'replicate-lora': 150 * 60,
};

/** The limit of an engine with no built-in one and no setting. */
const FALLBACK_TIME_LIMIT_SECONDS = 15 * 60;

/** The built-in limit of `engine`, in milliseconds. */
export function defaultTimeLimitMs(engine: string): number {
  return (DEFAULT_TIME_LIMIT_SECONDS[engine] ?? FALLBACK_TIME_LIMIT_SECONDS) * 1000;
}

/** What the user reads on a task stopped at its limit (`limitMs` shown in whole seconds). */
export function timeLimitMessage(limitMs: number): string {
  return `The task took longer than its ${Math.max(1, Math.ceil(limitMs / 1000))}-second limit and was stopped; your credits were refunded.`;
}

/** The reason a job's AbortSignal carries when it ran past its limit. */
export class TimeLimitExceeded extends Error {
  readonly limitMs: number;
  constructor(limitMs: number) {
    super(`time limit of ${limitMs} ms exceeded`);
    this.name = 'TimeLimitExceeded';
    this.limitMs = limitMs;
  }
}

/** `JOB_TIME_LIMIT_SECONDS_<ENGINE>` for an engine name: `local-video` → JOB_TIME_LIMIT_SECONDS_LOCAL_VIDEO. */
export function timeLimitVariable(engine: string): string {
  return `JOB_TIME_LIMIT_SECONDS_${engine.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

function seconds(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`${name} must be a positive whole number of seconds, got ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * The time limit of each engine in milliseconds: JOB_TIME_LIMIT_SECONDS_<ENGINE>, else
 * JOB_TIME_LIMIT_SECONDS, else the built-in default.
 */
export function timeLimitsFromEnv(engineNames: readonly string[], env: NodeJS.ProcessEnv = process.env): Record<string, number> {
  const all = seconds(env, 'JOB_TIME_LIMIT_SECONDS');
  return Object.fromEntries(
    engineNames.map((name) => {
      const own = seconds(env, timeLimitVariable(name)) ?? all;
      return [name, own === undefined ? defaultTimeLimitMs(name) : own * 1000];
    }),
  );
}
