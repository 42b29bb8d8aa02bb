/**
 * @module What an engine made, copied into the media store and turned into the task's
 * success: pictures (a grid and its cells, one picture, or a set that appears one by one),
 * videos with their posters, songs with their covers, lyrics and text answers, and the
 * `result` summary (engine, method, simulated, note, … plus the engine's own data). Upstream
 * URLs are downloaded (they expire); every file's type is read from its bytes.
 */
import { type EngineFile, type EngineImage, type EngineResult, EngineError, GENERIC_ENGINE_FAILURE } from '../engines/engine.ts';
import type { TaskRow, TaskSuccess, taskRepository } from '../repositories/task-repository.ts';
import type { MediaStore } from '../storage/media-store.ts';
import { detectMediaType, type MediaType } from '../storage/media-type.ts';
import { errorText, TransientError } from './worker-errors.ts';

/** The keys the worker writes into a task's result; an engine's `data` never replaces them. */
export const RESULT_KEYS = [
  'engine',
  'method',
  'simulated',
  'note',
  'layout',
  'width',
  'height',
  'upstream_id',
  'message',
  'code',
  'videos',
  'songs',
  'prompts',
];

export interface ResultStoreDeps {
  media: MediaStore;
  tasks: ReturnType<typeof taskRepository>;
  /** Largest file copied from an upstream URL. */
  maxMediaBytes: number;
  fetch: typeof fetch;
}

export function createResultStore(deps: ResultStoreDeps) {
  const { media, tasks, maxMediaBytes } = deps;

  /** The bytes of an engine file, copying an upstream URL (which may expire) into memory; the type from the bytes. */
  async function fileBytes(file: EngineImage | EngineFile, expected: MediaType['kind']): Promise<{ data: Buffer; type: MediaType }> {
    let data: Buffer;
    if (file.source === 'buffer') {
      data = file.data;
    } else {
      let res: Response;
      try {
        res = await deps.fetch(file.url, { signal: AbortSignal.timeout(120_000) });
      } catch (error) {
        throw new TransientError(`media download failed: ${errorText(error)}`);
      }
      if (!res.ok) throw new TransientError(`media download answered ${res.status}`);
      if (Number(res.headers.get('content-length') ?? 0) > maxMediaBytes)
        throw new EngineError('too_large', GENERIC_ENGINE_FAILURE, { detail: 'media too large' });
      data = Buffer.from(await res.arrayBuffer());
      if (data.length > maxMediaBytes) throw new EngineError('too_large', GENERIC_ENGINE_FAILURE, { detail: 'media too large' });
    }
    const type = detectMediaType(data);
    if (!type || type.kind !== expected) {
      throw new EngineError(file.source === 'url' ? 'upstream_failed' : 'internal', GENERIC_ENGINE_FAILURE, {
        detail: `expected ${expected}, got ${type?.contentType ?? 'an unknown type'}`,
      });
    }
    return { data, type };
  }

  async function store(task: TaskRow, file: EngineImage | EngineFile, kind: MediaType['kind'], name: string): Promise<string> {
    const { data, type } = await fileBytes(file, kind);
    try {
      return await media.put(`${task.id}-${name}.${type.extension}`, data, type.contentType);
    } catch (error) {
      throw new TransientError(`media store failed: ${errorText(error)}`);
    }
  }

  const storeImage = (task: TaskRow, image: EngineImage, name: string) => store(task, image, 'image', name);

  async function storePictures(task: TaskRow, result: EngineResult, onRow: (row: TaskRow | undefined) => void) {
    let imageUrl: string | null = null;
    let imageUrls: string[] | null = null;
    if (result.layout === 'grid') {
      if (!result.image || result.images.length === 0) throw new EngineError('internal', GENERIC_ENGINE_FAILURE, { detail: 'grid without images' });
      [imageUrl, ...imageUrls] = await Promise.all([
        storeImage(task, result.image, 'grid'),
        ...result.images.map((img, i) => storeImage(task, img, String(i + 1))),
      ]);
    } else if (result.layout === 'single') {
      const image = result.image ?? result.images[0];
      if (!image) throw new EngineError('internal', GENERIC_ENGINE_FAILURE, { detail: 'single result without an image' });
      imageUrl = await storeImage(task, image, 'image');
      imageUrls = [imageUrl];
    } else if (result.layout === 'set') {
      if (result.images.length === 0) throw new EngineError('internal', GENERIC_ENGINE_FAILURE, { detail: 'set result without images' });
      imageUrls = [];
      for (const [i, img] of result.images.entries()) {
        imageUrls.push(await storeImage(task, img, String(i + 1)));
        onRow(await tasks.recordImages(task.id, imageUrls));
      }
      imageUrl = imageUrls[0];
    }
    return { imageUrl, imageUrls };
  }

  async function storeVideos(task: TaskRow, result: EngineResult) {
    const videos = result.videos ?? [];
    const stored = await Promise.all(
      videos.map(async (video, i) => {
        const [url, poster] = await Promise.all([
          store(task, video.file, 'video', `video-${i + 1}`),
          video.poster ? storeImage(task, video.poster, `video-${i + 1}-poster`) : undefined,
        ]);
        const entry: Record<string, unknown> = { video_url: url };
        if (poster) entry.poster_url = poster;
        if (video.width) entry.width = video.width;
        if (video.height) entry.height = video.height;
        if (video.durationSec) entry.duration = video.durationSec;
        if (video.upstreamId) entry.id = video.upstreamId;
        return entry;
      }),
    );
    return stored;
  }

  async function storeSongs(task: TaskRow, result: EngineResult) {
    const songs = result.songs ?? [];
    return Promise.all(
      songs.map(async (song, i) => {
        const [url, cover] = await Promise.all([
          store(task, song.file, 'audio', `song-${i + 1}`),
          song.cover ? storeImage(task, song.cover, `song-${i + 1}-cover`) : undefined,
        ]);
        const entry: Record<string, unknown> = { audio_url: url };
        if (cover) entry.image_url = cover;
        if (song.title) entry.title = song.title;
        if (song.lyrics) entry.lyrics = song.lyrics;
        if (song.tags) entry.tags = song.tags;
        if (song.durationSec) entry.duration = song.durationSec;
        if (song.upstreamId) entry.id = song.upstreamId;
        return entry;
      }),
    );
  }

  /**
   * Stores what the engine made. The photos of a `set` are stored one by one, in order, and
   * each is shown in the task's image_urls at once (`onRow` gets the updated row), so a
   * client sees the photos arrive rather than all at the end.
   */
  async function storeResult(task: TaskRow, result: EngineResult, onRow: (row: TaskRow | undefined) => void): Promise<TaskSuccess> {
    const { imageUrl, imageUrls } = await storePictures(task, result, onRow);
    const [videos, songs] = await Promise.all([storeVideos(task, result), storeSongs(task, result)]);
    const summary: Record<string, unknown> = {
      engine: result.engine,
      method: result.method,
      simulated: result.simulated,
      layout: result.layout,
    };
    if (result.note) summary.note = result.note;
    if (result.width) summary.width = result.width;
    if (result.height) summary.height = result.height;
    if (result.upstreamId) summary.upstream_id = result.upstreamId;
    if (videos.length) summary.videos = videos;
    if (songs.length) summary.songs = songs;
    if (result.texts?.length) summary.prompts = result.texts;
    // what else the engine found (an identity profile, per-photo verdicts), never over the worker's own keys
    for (const [key, value] of Object.entries(result.data ?? {})) if (!RESULT_KEYS.includes(key)) summary[key] = value;
    const lyrics = result.lyrics ?? result.songs?.find((s) => s.lyrics)?.lyrics ?? null;
    return {
      imageUrl,
      imageUrls,
      videoUrls: videos.length ? videos.map((v) => v.video_url as string) : null,
      audioUrls: songs.length ? songs.map((s) => s.audio_url as string) : null,
      lyrics,
      seed: result.seed === undefined ? null : String(result.seed),
      result: summary,
    };
  }

  return { storeResult };
}
