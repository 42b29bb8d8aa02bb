/**
 * @module The local audio engine (`local-audio`): the audio family (suno, suno-extend,
 * suno-lyrics, suno-upload, udio) on CPU with nothing downloaded. Songs are **simulated**:
 * procedurally synthesised music, real and playable (128 kbit/s MP3, 44.1 kHz stereo), whose
 * genre, tempo, key, scale and instruments come from the request's words and the seed (same
 * request and seed → byte-identical files), with a formant voice singing the lyrics' vowels
 * (not words), template lyrics labelled simulated when none are given (none for an
 * instrumental), and a procedural cover labelled SIMULATED in its pixels. Real, not simulated:
 * reading an upload (format and duration) and, when extending, decoding the song, measuring
 * its tempo and key, keeping its first `continueAt` seconds sample for sample and continuing
 * from there. Two songs per suno/udio/extend call, as Suno and Udio make.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { defineEngine, throwIfAborted } from '../define-engine.ts';
import { type Engine, EngineError, type EngineJob, type EngineResult, type EngineStage, type ProgressListener } from '../engine.ts';
import { type AudioJob, DEFAULT_SUNO_MODEL, DEFAULT_UDIO_MODEL, type UdioModel } from '../jobs/audio.ts';
import { HashStream } from '../local/random.ts';
import { estimateKey, estimateTempo } from './analysis.ts';
import { decodeAudio, inspectAudio } from './audio-file.ts';
import { renderCover } from './cover.ts';
import { SIMULATED_LYRICS_LABEL, titleFrom, writeLyrics } from './lyrics.ts';
import { encodeMp3 } from './mp3.ts';
import { joinPcm, type Pcm, pcmLength, SAMPLE_RATE, slicePcm } from './pcm.ts';
import { syllablesOf, writeScore } from './score.ts';
import { chooseStyle, keyName, type Style } from './style.ts';
import { renderScore } from './synth.ts';

export interface LocalAudioEngineOptions {
  /** Length range of a Suno song, seconds (the seed picks within it). Default 30–40. */
  sunoSeconds?: readonly [number, number];
  /** Length range of what suno-extend adds, seconds. Default 20–30. */
  extendSeconds?: readonly [number, number];
  /** Length of a Udio song per model, seconds. Default udio32 32, udio130 130 (the models' clip lengths). */
  udioSeconds?: Partial<Record<UdioModel, number>>;
  /** Songs per suno, udio and suno-extend call. Default 2. */
  songsPerCall?: number;
}

type Kind<K extends AudioJob['kind']> = Extract<EngineJob, { kind: K }>;

const ENGINE = 'local-audio';
const METHOD = 'procedural-synthesis';
const CROSSFADE_SECONDS = 0.05;
/** The tonic's MIDI note lies in E3 (52) … D#4 (63), where chooseStyle puts it. */
const LOWEST_TONIC = 52;
/** How much of the song before continue_at is listened to for its tempo and key. */
const ANALYSIS_SECONDS = 12;
/** Uploads up to this long are decoded for their exact length. */
const DECODED_UPLOAD_SECONDS = 180;

const SIMULATED_NOTE =
  'Simulated: music synthesised locally from the words of the request and the seed (genre, tempo, key and instruments picked by rules), not a generative model. The voice sings the vowels of the lyrics, not words. The cover is procedural.';

interface Song {
  file: { source: 'buffer'; data: Buffer; contentType: string };
  cover: Awaited<ReturnType<typeof renderCover>>;
  title: string;
  lyrics?: string;
  tags?: string;
  durationSec: number;
  upstreamId: string;
}

const newSeed = () => randomInt(0, 2 ** 32 - 1);

/** A promise awaited later (with Promise.all): its failure is not reported as unhandled meanwhile. */
function settledLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
const rounded = (seconds: number) => Math.round(seconds * 1000) / 1000;
const isMinor = (style: Style) => style.mode === 'minor' || style.mode === 'dorian' || style.mode === 'phrygian';

function describeStyle(style: Style) {
  return {
    genre: style.genre,
    bpm: style.bpm,
    key: keyName(style),
    lead: style.lead,
    chords: style.pad,
    bass: style.bass,
    drums: style.drums,
    words_used: style.matched,
  };
}

/** Progress of one piece of a run: `from`…`to` of the whole, reported as fractions arrive. */
function span(report: ProgressListener, from: number, to: number, status?: EngineStage) {
  return (fraction: number) => report({ percentage: from + (to - from) * Math.min(1, Math.max(0, fraction)), ...(status ? { status } : {}) });
}

export function createLocalAudioEngine(options: LocalAudioEngineOptions = {}): Engine {
  const sunoSeconds = options.sunoSeconds ?? [30, 40];
  const extendSeconds = options.extendSeconds ?? [20, 30];
  const udioSeconds: Record<UdioModel, number> = { 'udio32-v1.5': 32, 'udio130-v1.5': 130, ...options.udioSeconds };
  const songsPerCall = options.songsPerCall ?? 2;

  /** Encodes a rendered song and draws its cover. */
  async function finishSong(
    pcm: Pcm,
    meta: { title: string; lyrics?: string; tags?: string; seed: number; minor: boolean },
    progress: (f: number) => void,
    signal: AbortSignal,
  ): Promise<Song> {
    const [data, cover] = await Promise.all([
      encodeMp3(pcm, { signal, onProgress: progress }),
      renderCover({ title: meta.title, seed: meta.seed, minor: meta.minor, pcm }),
    ]);
    return {
      file: { source: 'buffer', data, contentType: 'audio/mpeg' },
      cover,
      title: meta.title,
      ...(meta.lyrics ? { lyrics: meta.lyrics } : {}),
      ...(meta.tags ? { tags: meta.tags } : {}),
      durationSec: rounded(pcmLength(pcm) / pcm.sampleRate),
      upstreamId: randomUUID(),
    };
  }

  /** Suno and Udio: `songsPerCall` songs of one style, each its own arrangement (and, for Udio, its own lyrics). */
  async function makeSongs(
    request: {
      text: string;
      tags?: string;
      title?: string;
      lyrics?: string;
      instrumental: boolean;
      seconds: (stream: HashStream) => number;
      negative?: string;
      promptStrength?: number;
      clarity?: number;
      quality?: number;
      vocalLevel?: number;
      lyricsWindow?: { start: number; end: number };
      lyricsPerSong: boolean;
      seed: number;
    },
    report: ProgressListener,
    signal: AbortSignal,
  ) {
    const style = chooseStyle(
      { text: request.text, negative: request.negative, promptStrength: request.promptStrength },
      new HashStream('local-audio-style', request.text, request.seed),
    );
    const songs: Promise<Song>[] = [];
    for (let i = 0; i < songsPerCall; i++) {
      throwIfAborted(signal);
      const written = request.instrumental || request.lyrics ? undefined : writeLyrics(request.text, request.lyricsPerSong ? request.seed + i : request.seed);
      const lyrics = request.instrumental ? undefined : (request.lyrics ?? written?.lyrics);
      const title = request.title || written?.title || titleFrom(request.text, new HashStream('local-audio-title', request.text, request.seed));
      const stream = new HashStream('local-audio-song', request.text, request.seed, i);
      const score = writeScore(
        { style, seconds: request.seconds(stream), syllables: lyrics ? syllablesOf(lyrics) : [], lyricsWindow: request.lyricsWindow },
        stream,
      );
      const share = 90 / songsPerCall;
      const from = 5 + i * share;
      const pcm = await renderScore(score, {
        sampleRate: SAMPLE_RATE,
        seed: request.seed + i,
        space: style.space,
        clarity: request.clarity,
        quality: request.quality,
        vocalLevel: request.vocalLevel,
        crackle: style.crackle,
        signal,
        onProgress: span(report, from, from + share * 0.4, 'processing'),
      });
      // encoded on the encoder thread while the next song is synthesised here
      songs.push(
        settledLater(
          finishSong(
            pcm,
            { title, lyrics, tags: request.tags, seed: request.seed + i, minor: isMinor(style) },
            span(report, from + share * 0.4, from + share),
            signal,
          ),
        ),
      );
    }
    return { style, songs: await Promise.all(songs) };
  }

  function songResult(songs: Song[], seed: number, data: Record<string, unknown>, note = SIMULATED_NOTE, method = METHOD, simulated = true): EngineResult {
    const lyrics = songs.find((s) => s.lyrics)?.lyrics;
    return { engine: ENGINE, method, simulated, note, layout: 'none', images: [], seed, songs, ...(lyrics ? { lyrics } : {}), data };
  }

  const between = (range: readonly [number, number]) => (stream: HashStream) => range[0] + (range[1] - range[0]) * stream.next();
  const textOf = (...parts: (string | undefined)[]) => parts.filter(Boolean).join(' ').trim();

  async function suno(job: Kind<'suno'>, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
    const text = textOf(job.prompt, job.tags, job.title) || textOf(job.lyrics?.slice(0, 200));
    if (!text) throw new EngineError('invalid_input', 'Describe the song or give its lyrics.');
    const seed = job.seed ?? newSeed();
    const { style, songs } = await makeSongs(
      { text, tags: job.tags, title: job.title, lyrics: job.lyrics, instrumental: job.instrumental, seconds: between(sunoSeconds), lyricsPerSong: false, seed },
      report,
      signal,
    );
    return songResult(songs, seed, {
      music: { ...describeStyle(style), model: job.model ?? DEFAULT_SUNO_MODEL, model_note: 'The local engine synthesises the same way for every model.' },
    });
  }

  async function udio(job: Kind<'udio'>, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
    const text = textOf(job.prompt, job.tags) || textOf(job.lyrics?.slice(0, 200));
    if (!text) throw new EngineError('invalid_input', 'Describe the song or give its lyrics.');
    const seed = job.seed ?? newSeed();
    const model = job.model ?? DEFAULT_UDIO_MODEL;
    const start = job.lyricsPlacementStart;
    const end = job.lyricsPlacementEnd;
    const { style, songs } = await makeSongs(
      {
        text,
        tags: job.tags,
        lyrics: job.lyrics,
        instrumental: false,
        seconds: () => udioSeconds[model],
        negative: job.negativePrompt,
        promptStrength: job.promptStrength,
        clarity: job.clarityStrength,
        quality: job.generationQuality,
        vocalLevel: job.lyricsStrength === undefined ? undefined : 0.3 + 0.7 * job.lyricsStrength,
        lyricsWindow: start !== undefined || end !== undefined ? { start: start ?? 0, end: end ?? Number.POSITIVE_INFINITY } : undefined,
        lyricsPerSong: true,
        seed,
      },
      report,
      signal,
    );
    return songResult(songs, seed, { music: { ...describeStyle(style), model } });
  }

  async function extend(job: Kind<'suno-extend'>, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
    report({ percentage: 3, status: 'processing' });
    const parent = await decodeAudio(job.song.audio.data, job.song.audio.contentType, job.fromUpload ? 'uploaded audio' : 'song');
    const parentSeconds = pcmLength(parent) / parent.sampleRate;
    if (!(job.continueAt > 0) || job.continueAt > parentSeconds + 0.05) {
      throw new EngineError(
        'invalid_input',
        `continue_at (${job.continueAt} s) must be after the start and within the song (${parentSeconds.toFixed(2)} s long).`,
      );
    }
    throwIfAborted(signal);
    const cut = Math.min(pcmLength(parent), Math.round(job.continueAt * SAMPLE_RATE));
    const head = slicePcm(parent, 0, cut);
    const overlap = slicePcm(parent, cut, cut + Math.round(CROSSFADE_SECONDS * SAMPLE_RATE));
    const window = Math.max(0, cut - ANALYSIS_SECONDS * SAMPLE_RATE);
    const bpm = estimateTempo(parent, window, cut);
    const key = estimateKey(parent, window, cut);
    report({ percentage: 10 });
    const text = textOf(job.prompt, job.tags, job.title) || textOf(job.song.title, job.song.tags) || 'song';
    const seed = job.seed ?? newSeed();
    const base = chooseStyle({ text }, new HashStream('local-audio-style', text, seed));
    // the continuation keeps the song's measured tempo and key
    const style: Style = {
      ...base,
      bpm: bpm ? Math.round(bpm) : base.bpm,
      tonic: key ? LOWEST_TONIC + ((key.pitchClass - (LOWEST_TONIC % 12) + 12) % 12) : base.tonic,
      mode: key ? key.mode : base.mode,
    };
    const songs: Promise<Song>[] = [];
    for (let i = 0; i < songsPerCall; i++) {
      const wordsToSing = job.lyrics ?? (job.song.lyrics ? writeLyrics(text, seed + i).lyrics : undefined);
      const stream = new HashStream('local-audio-extend', text, seed, i);
      const seconds = between(extendSeconds)(stream);
      const score = writeScore({ style, seconds, syllables: wordsToSing ? syllablesOf(wordsToSing) : [], continuation: true }, stream);
      const share = 85 / songsPerCall;
      const from = 10 + i * share;
      const tail = await renderScore(score, {
        sampleRate: SAMPLE_RATE,
        seed: seed + i,
        space: style.space,
        crackle: style.crackle,
        fadeIn: false,
        signal,
        onProgress: span(report, from, from + share * 0.4),
      });
      const joined = joinPcm(head, tail, overlap, Math.round(CROSSFADE_SECONDS * SAMPLE_RATE));
      const lyrics = [job.song.lyrics, wordsToSing?.replace(`${SIMULATED_LYRICS_LABEL}\n\n`, '')].filter(Boolean).join('\n\n[Extension]\n');
      const title = job.title || job.song.title || titleFrom(text, stream);
      songs.push(
        settledLater(
          finishSong(
            joined,
            { title, lyrics: lyrics || undefined, tags: job.tags ?? job.song.tags, seed: seed + i, minor: isMinor(style) },
            span(report, from + share * 0.4, from + share),
            signal,
          ),
        ),
      );
    }
    const note = `${SIMULATED_NOTE} The first ${job.continueAt} s are the original song, kept as they were; the rest is synthesised at its measured tempo and key.`;
    return songResult(
      await Promise.all(songs),
      seed,
      {
        music: describeStyle(style),
        extend: {
          continue_at: job.continueAt,
          from_upload: job.fromUpload,
          original_duration: rounded(parentSeconds),
          measured_bpm: bpm ?? null,
          measured_key: key ? keyName({ tonic: key.pitchClass, mode: key.mode }) : null,
        },
      },
      note,
    );
  }

  async function upload(job: Kind<'suno-upload'>, report: ProgressListener): Promise<EngineResult> {
    report({ percentage: 10, status: 'processing' });
    const facts = await inspectAudio(job.audio.data, job.audio.contentType, 'uploaded audio');
    // MP3 and WAV of up to 3 minutes are decoded for the exact length and the cover's loudness ring (decoding
    // runs on the event loop, ~0.1 s per minute); others keep the container's length
    let pcm: Pcm | undefined;
    if ((facts.format === 'mp3' || facts.format === 'wav') && facts.durationSec <= DECODED_UPLOAD_SECONDS) {
      pcm = await decodeAudio(job.audio.data, job.audio.contentType, 'uploaded audio');
    }
    report({ percentage: 60 });
    const name = decodeURIComponent(new URL(job.audio.url, 'http://x').pathname.split('/').pop() ?? '').replace(/\.[a-z0-9]+$/i, '');
    const title = name && !/^upload-[0-9a-f-]{36}$/.test(name) ? name : 'Uploaded audio';
    const durationSec = rounded(pcm ? pcmLength(pcm) / pcm.sampleRate : facts.durationSec);
    const cover = await renderCover({ title, seed: 0, minor: false, pcm });
    const song: Song = {
      file: { source: 'buffer', data: job.audio.data, contentType: job.audio.contentType },
      cover,
      title,
      durationSec,
      upstreamId: randomUUID(),
    };
    const audio = {
      format: facts.format,
      codec: facts.codec ?? null,
      duration: durationSec,
      sample_rate: facts.sampleRate ?? null,
      channels: facts.channels ?? null,
      bitrate: facts.bitrate ?? null,
    };
    const note = `Your audio as uploaded (${facts.format.toUpperCase()}, ${durationSec.toFixed(1)} s), ready to extend with /suno-extend and from_upload. The cover is procedural.`;
    return { engine: ENGINE, method: 'upload', simulated: false, note, layout: 'none', images: [], songs: [song], data: { audio } };
  }

  function lyricsOnly(job: Kind<'suno-lyrics'>): EngineResult {
    if (!job.prompt.trim()) throw new EngineError('invalid_input', 'Describe what the lyrics should be about.');
    const seed = job.seed ?? newSeed();
    const { title, lyrics } = writeLyrics(job.prompt, seed);
    return {
      engine: ENGINE,
      method: 'lyrics-template',
      simulated: true,
      note: 'Simulated: lyrics filled in from line templates with the words of the prompt, not written by a language model.',
      layout: 'none',
      images: [],
      seed,
      lyrics,
      data: { title },
    };
  }

  return defineEngine({
    name: ENGINE,
    kinds: ['suno', 'suno-extend', 'suno-lyrics', 'suno-upload', 'udio'],
    // the upload is the user's own audio; everything else is synthesised stand-ins
    simulatedKinds: ['suno', 'suno-extend', 'suno-lyrics', 'udio'],
    async execute(job, report, signal) {
      switch (job.kind) {
        case 'suno':
          return suno(job, report, signal);
        case 'udio':
          return udio(job, report, signal);
        case 'suno-extend':
          return extend(job, report, signal);
        case 'suno-upload':
          return upload(job, report);
        case 'suno-lyrics':
          return lyricsOnly(job);
        default:
          throw new EngineError('unsupported', 'This engine cannot run this task.', { detail: `${job.kind} is not a kind of the local audio engine` });
      }
    },
  });
}
