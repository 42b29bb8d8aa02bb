/**
 * @module What each task family adds to the v1 view (`toTaskView` in task-view.ts builds the
 * rest: task_id, task_type, status, percentage, prompt, seed, videos/songs/lyrics when the row
 * has them, message on failure, our extras).
 *
 * Adding a family (or a type to one): add an entry to FAMILY_VIEWS with
 * - `types`: the task types it covers (spec §3 names);
 * - `pictures`: how its pictures show: `grid` → `original_image_url` (the composite) +
 *   `image_urls` (the cells), `single` → `image_url`, `set` → `image_urls`, `none` → no picture
 *   fields. Omitted: the layout the engine reported in `result.layout`;
 * - `fields(row, status)`: its own result fields (only those that apply now), e.g. an AI photo
 *   training's `trigger_word`. Any new field name goes into `TaskResultFields` (task-view.ts)
 *   and the route schema (`TaskView` in routes/task-schemas.ts) too;
 * - `actions(row)`: the v1 follow-ups a finished task offers (only finished tasks show them).
 * Then assert the family's exact view in test/fetch.test.ts ('the v1 view of each family').
 */
import type { TaskRow } from '../../repositories/task-repository.ts';
import type { SongView, TaskResultFields, V1Status } from './task-view.ts';

export type PictureLayout = 'grid' | 'single' | 'set' | 'none';

export interface TaskFamilyView {
  /** The task types this entry covers. */
  types: (type: string) => boolean;
  pictures?: PictureLayout;
  fields?: (row: TaskRow, status: V1Status) => TaskResultFields;
  actions?: (row: TaskRow) => string[];
}

const oneOf =
  (...types: string[]) =>
  (type: string) =>
    types.includes(type);

const cellsOf = (row: TaskRow) => Math.min(row.image_urls?.length ?? 0, 4);
const numbered = (name: string, count: number) => Array.from({ length: count }, (_, i) => `${name}${i + 1}`);

/**
 * What an upscaled Midjourney image can become, named after the v1 call that does it:
 * upscale_subtle/_creative (/upscale-alt), upscale_2x/_4x (/upscale-highres), vary_subtle/_strong
 * (/variations with index subtle|strong), zoom_out_2x/_1.5x (/outpaint), pan_* (/pan).
 */
const UPSCALED_ACTIONS = [
  'upscale_subtle',
  'upscale_creative',
  'upscale_2x',
  'upscale_4x',
  'vary_subtle',
  'vary_strong',
  'zoom_out_2x',
  'zoom_out_1.5x',
  'pan_up',
  'pan_down',
  'pan_left',
  'pan_right',
];

/** result.songs with each song's id also as song_id (v1's name for it); nothing on failure. */
function songsWithIds(row: TaskRow, status: V1Status): TaskResultFields {
  const songs = row.result?.songs;
  if (status === 'failed' || !Array.isArray(songs) || songs.length === 0) return {};
  return { songs: (songs as SongView[]).map((song) => (song.id ? { ...song, song_id: song.id } : song)) };
}

/** The prompts a finished describe or shorten found (result.prompts), else none. */
function promptsOf(row: TaskRow, status: V1Status): string[] {
  const prompts = row.result?.prompts;
  return status === 'finished' && Array.isArray(prompts) ? prompts.filter((p): p is string => typeof p === 'string') : [];
}

/** `content`: the prompts numbered with keycaps (1️⃣ …), as Midjourney and v1 show them. */
function promptFields(row: TaskRow, status: V1Status): TaskResultFields {
  const prompts = promptsOf(row, status);
  return prompts.length > 0 ? { content: prompts.map((prompt, i) => `${i + 1}\uFE0F\u20E3 ${prompt}`) } : {};
}

const FAMILY_VIEWS: readonly TaskFamilyView[] = [
  // Midjourney grids (spec §4): the composite and its four cells; each cell can be upscaled or varied, the prompt rerolled.
  {
    types: (type) => /^(imagine|reroll|blend|inpaint|variation-([1-4]|strong|subtle)|pan-(up|down|left|right)|outpaint-.+)$/.test(type),
    pictures: 'grid',
    actions: (row) => [...numbered('upscale', cellsOf(row)), ...numbered('variation', cellsOf(row)), ...(row.prompt ? ['reroll'] : [])],
  },
  // Midjourney upscales: one image. The plain U1–U4 cell (upscale#N) and the Midjourney upscalers
  // can be worked on further; an enlargement (2x, 4x) is an end result.
  {
    types: (type) => /^upscale(#[1-4]|-(subtle|creative))$/.test(type),
    pictures: 'single',
    actions: (row) => (row.type.startsWith('upscale#') ? UPSCALED_ACTIONS : UPSCALED_ACTIONS.filter((a) => !a.startsWith('upscale_'))),
  },
  { types: oneOf('upscale-2x', 'upscale-4x'), pictures: 'single' },
  // /pro/seed: the seed of its parent, no picture of its own.
  { types: oneOf('seed'), pictures: 'none' },
  { types: oneOf('flux-imagine', 'faceswap'), pictures: 'single' },
  // Ideogram answers its pictures as a list (the grid stays in the task row for the dashboard).
  { types: oneOf('ideogram-imagine', 'ideogram-remix', 'ideogram-upscale'), pictures: 'set' },
  // Text answers (result.prompts): Midjourney's describe (with the picture described) and shorten list
  // them in content, numbered as Midjourney does (shorten adds its analysis); Ideogram's describe is one description.
  {
    types: oneOf('describe'),
    pictures: 'none',
    fields: (row, status) => ({
      ...promptFields(row, status),
      ...(typeof row.input_data?.image_url === 'string' ? { image_url: row.input_data.image_url } : {}),
    }),
  },
  {
    types: oneOf('shorten'),
    pictures: 'none',
    fields: (row, status) => ({
      ...promptFields(row, status),
      ...(status === 'finished' && typeof row.result?.full_content === 'string' ? { full_content: row.result.full_content } : {}),
    }),
  },
  {
    types: oneOf('ideogram-describe'),
    pictures: 'none',
    fields: (row, status) => {
      const [description] = promptsOf(row, status);
      return description ? { description } : {};
    },
  },
  // AI photos (spec §4): an upload is ready for training; a training is known by its trigger word; a generation's photos arrive one by one.
  {
    types: oneOf('ai-photo-upload'),
    pictures: 'none',
    fields: (_row, status) => (status === 'finished' ? { message: 'Images ready for training' } : {}),
  },
  {
    types: oneOf('ai-photo-train'),
    pictures: 'none',
    fields: (row) => {
      const word = row.input_data?.trigger_word;
      return typeof word === 'string' && word ? { trigger_word: word } : {};
    },
  },
  { types: oneOf('ai-photo-generate'), pictures: 'set' },
  // Videos: video_url and video_urls come from the row (task-view.ts); each video's still is result.videos[i].poster_url.
  // A Luma video extends with /luma-extend; each of a Midjourney video task's clips with /imagine-video-extend (index N).
  { types: oneOf('luma', 'luma-ext'), pictures: 'none', actions: () => ['extend'] },
  { types: oneOf('kling-video', 'runway'), pictures: 'none' },
  {
    types: oneOf('imagine-video', 'imagine-video-extend'),
    pictures: 'none',
    actions: (row) => numbered('extend', Math.min(row.video_urls?.length ?? 0, 4)),
  },
  // Kling's virtual try-on answers a picture.
  { types: oneOf('kling-tryon'), pictures: 'single' },
  // Songs: audio_url, songs and lyrics come from the row (task-view.ts); each song also carries song_id, the name a
  // v1 client extends it by (/suno-extend). Suno songs and uploads can be extended; suno-lyrics answers lyrics only.
  { types: oneOf('suno', 'suno-ext', 'suno-upload'), pictures: 'none', fields: songsWithIds, actions: () => ['extend'] },
  { types: oneOf('udio'), pictures: 'none', fields: songsWithIds },
  { types: oneOf('suno-lyrics'), pictures: 'none' },
];

/** The family entry of a task type, or undefined for a type no family describes yet. */
export function familyViewOf(type: string): TaskFamilyView | undefined {
  return FAMILY_VIEWS.find((family) => family.types(type));
}
