/**
 * Local audio engine timings, per second of audio made, with baselines measured in the same
 * run: writing silence (as 16-bit WAV, and as MP3 through the same encoder), then the parts of
 * a song (writing the score and synthesising it; encoding those samples to MP3) and a whole
 * suno call end to end (two songs, covers included). Also the worst event-loop delay seen
 * during the end-to-end runs (the engine works on the event loop in slices; it must stay free),
 * and the machine's load average (a shared machine slows every figure; the measurements are
 * interleaved so they slow alike).
 *
 *   npx tsx bench/audio-bench.ts [--iterations 3] [--seconds 30]
 *
 * Prints one JSON document on stdout.
 */
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createLocalAudioEngine } from '../src/engines/local-audio/index.ts';
import { writeLyrics } from '../src/engines/local-audio/lyrics.ts';
import { encodeMp3 } from '../src/engines/local-audio/mp3.ts';
import { type Pcm, SAMPLE_RATE, silence } from '../src/engines/local-audio/pcm.ts';
import { syllablesOf, writeScore } from '../src/engines/local-audio/score.ts';
import { chooseStyle } from '../src/engines/local-audio/style.ts';
import { renderScore } from '../src/engines/local-audio/synth.ts';
import { encodeWav } from '../src/engines/local-audio/wav.ts';
import { HashStream } from '../src/engines/local/random.ts';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '30' },
  },
});
const iterations = Math.max(1, Number(values.iterations));
const seconds = Math.max(2, Number(values.seconds));
const PROMPTS = ['an upbeat synthwave song about neon city nights', 'a melancholy jazz song about rain in paris, piano', 'calm ambient meditation with bells'];

const round = (v: number) => Math.round(v * 10) / 10;

/** Median and spread of `samples` (ms for `audioSeconds` of audio), as ms per audio second. */
function perSecond(samples: number[], audioSeconds: number) {
  const sorted = samples.map((ms) => ms / audioSeconds).sort((a, b) => a - b);
  return {
    n: sorted.length,
    minMsPerAudioSecond: round(sorted[0]),
    medianMsPerAudioSecond: round(sorted[Math.floor(sorted.length / 2)]),
    maxMsPerAudioSecond: round(sorted[sorted.length - 1]),
    realtimeFactor: round(1000 / sorted[Math.floor(sorted.length / 2)]),
  };
}

/** Runs every measurement once per iteration, interleaved, so a busy machine slows all of them alike. */
async function main() {
  const quiet = silence(seconds);
  const engine = createLocalAudioEngine({ sunoSeconds: [seconds, seconds] });
  const signal = new AbortController().signal;
  // a fresh monitor per end-to-end run: one re-enabled after a pause counts the pause as a delay
  const loopDelays: { max: number; p99: number }[] = [];
  const samples = { wavSilence: [] as number[], mp3Silence: [] as number[], synthesis: [] as number[], mp3Song: [] as number[], endToEnd: [] as number[] };
  let audioPerCall = 0;
  const timed = async (into: number[] | undefined, fn: () => Promise<unknown>) => {
    const start = performance.now();
    await fn();
    into?.push(performance.now() - start);
  };
  const loadBefore = loadavg()[0];
  // iteration 0 warms up (WASM, tables, first-use costs) and is not counted
  for (let i = 0; i <= iterations; i += 1) {
    const keep = <T>(list: T) => (i === 0 ? undefined : list);
    const prompt = PROMPTS[i % PROMPTS.length];
    let song: Pcm | undefined;
    await timed(keep(samples.wavSilence), async () => encodeWav(quiet));
    await timed(keep(samples.mp3Silence), () => encodeMp3(quiet));
    await timed(keep(samples.synthesis), async () => {
      const style = chooseStyle({ text: prompt }, new HashStream('bench-style', prompt, i));
      const score = writeScore({ style, seconds, syllables: syllablesOf(writeLyrics(prompt, i).lyrics) }, new HashStream('bench-song', i));
      song = await renderScore(score, { sampleRate: SAMPLE_RATE, seed: i, space: style.space, crackle: style.crackle });
    });
    await timed(keep(samples.mp3Song), () => encodeMp3(song ?? quiet));
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    await timed(keep(samples.endToEnd), async () => {
      const result = await engine.run({ kind: 'suno', prompt, instrumental: false, seed: i }, () => {}, signal);
      audioPerCall = (result.songs ?? []).reduce((sum, s) => sum + (s.durationSec ?? 0), 0);
    });
    loopDelay.disable();
    if (i > 0) loopDelays.push({ max: loopDelay.max, p99: loopDelay.percentile(99) });
  }

  const output = {
    bench: 'local-audio',
    at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadAverage: { before: round(loadBefore), after: round(loadavg()[0]) },
    iterations,
    secondsPerSong: seconds,
    format: { codec: 'MP3 (lamejs)', bitrateKbps: 128, sampleRate: SAMPLE_RATE, channels: 2 },
    results: {
      baselineWavSilence: { ...perSecond(samples.wavSilence, seconds), what: 'writing silence as 16-bit stereo WAV: the floor of writing any audio file' },
      baselineMp3Silence: { ...perSecond(samples.mp3Silence, seconds), what: 'encoding silence to MP3: the encoder on input that costs it least' },
      synthesis: { ...perSecond(samples.synthesis, seconds), what: 'writing the score and synthesising it (instruments, voice, reverb, mastering)' },
      mp3Encoding: { ...perSecond(samples.mp3Song, seconds), what: 'encoding a synthesised song to MP3' },
      sunoEndToEnd: {
        ...perSecond(samples.endToEnd, audioPerCall),
        audioSecondsPerCall: round(audioPerCall),
        what: 'a suno call through the engine: two songs synthesised, encoded and given covers',
      },
      eventLoopMaxDelayMs: round(Math.max(...loopDelays.map((d) => d.max)) / 1e6),
      eventLoopP99DelayMs: round(Math.max(...loopDelays.map((d) => d.p99)) / 1e6),
    },
  };
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
}

await main();
