// The AI Photos screen's rules (spec §2 AI Photos, §4 the wizard's transitions, §5 training
// validation, §7 the three calls, §8 toasts, §9 limits), kept free of React so they can be
// table-tested (test/ai-photos-rules.test.ts).
import { AI_PHOTO, isTerminalStatus, taskFamily } from '@aim/shared-kit/domain';
import { failureMessage, type LiveTask, taskPhase } from '../tasks/task-rules.ts';
import type { LiveTaskState } from '../tasks/use-live-task.ts';

// Spec texts: these must match exactly.
export const NOT_AI_PHOTO_TASK = 'This task is not an AI Photo task!';
export const ERROR_FETCHING_AI_PHOTO_TASKS = 'Error fetching AI Photo tasks!';
export const ERROR_PREPARING_TRAINING_DATA = 'Error uploading and preparing training data!';
export const ERROR_TRAINING = 'Error training the model!';
export const ERROR_GENERATING = 'Error generating AI Photos!';
export const ERROR_UPLOADING_IMAGES = 'Error uploading images!';
export const ERROR_DOWNLOADING_IMAGE = 'Error downloading image';
export const MAX_PHOTOS_MESSAGE = `You already selected the maximum of ${AI_PHOTO.maxImages} images`;

/** Spec §5: '{file}: low resolution (<512×512)'. */
export function lowResolutionWarning(fileName: string): string {
  return `${fileName}: low resolution (<512×512)`;
}

/** A chosen file the browser cannot show: the upload check could not use it either. */
export function unreadablePhotoWarning(fileName: string): string {
  return `${fileName}: cannot be read as a picture`;
}

export const UPLOAD_TYPE = 'ai-photo-upload';
export const TRAIN_TYPE = 'ai-photo-train';
export const GENERATE_TYPE = 'ai-photo-generate';
export const AI_PHOTO_TYPES = [UPLOAD_TYPE, TRAIN_TYPE, GENERATE_TYPE] as const;

export function isAiPhotoTask(type: string | null | undefined): boolean {
  return !!type && taskFamily(type) === 'ai-photo';
}

/** What a task of this family was asked (spec §3 input_data; §7 payloads). */
type AiPhotoInput = {
  gender?: string | null;
  ethnicity?: string | null;
  age?: number | string | null;
  trigger_word?: string | null;
  training_images_id?: string | null;
  training_id?: string | null;
  prompt?: string | null;
  aspect_ratio?: string | null;
  /** An upload's photos as the server stored them, in upload order. */
  images?: string[] | null;
};

/** The fields of an ai-photo task row (spec §3) the wizard reads. */
export type AiPhotoTask = LiveTask & {
  image_url: string | null;
  image_urls: string[] | null;
  prompt: string | null;
  result: (Record<string, unknown> & { message?: string | null; note?: string | null }) | null;
  refund: number | null;
  parent_id?: string | null;
  input_data: AiPhotoInput | null;
};

// ---------------------------------------------------------------------------------------------
// Step 1, Prepare: the photos and the person (spec §5)

/** The photo types the upload decodes (the server checks the bytes; gif is not a photo it trains on). */
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
const PHOTO_TYPE_MESSAGE = 'only jpeg, png and webp photos can be used';

export const GENDERS = [
  { value: 'male', label: 'Male' },
  { value: 'female', label: 'Female' },
] as const;

export const ETHNICITIES = [
  { value: 'asian', label: 'Asian' },
  { value: 'black', label: 'Black' },
  { value: 'latino', label: 'Latino' },
  { value: 'middle eastern', label: 'Middle Eastern' },
  { value: 'native american', label: 'Native American' },
  { value: 'pacific islander', label: 'Pacific Islander' },
  { value: 'white', label: 'White' },
  { value: 'mixed', label: 'Mixed' },
  { value: 'other', label: 'Other' },
] as const;

export type Gender = (typeof GENDERS)[number]['value'];
export type Ethnicity = (typeof ETHNICITIES)[number]['value'];

/** The image is under 512×512 when it has fewer pixels (spec §9: 262144). */
export function isLowResolution(size: { width: number; height: number }): boolean {
  return size.width * size.height < AI_PHOTO.minPixels;
}

export type PhotoFile = { name: string; type: string; size: number; lastModified: number };

/** The same file chosen twice (same name, size and date) adds nothing. */
function samePhotoFile(a: PhotoFile, b: PhotoFile): boolean {
  return a.name === b.name && a.size === b.size && a.lastModified === b.lastModified;
}

/**
 * Which of the chosen files join the selection: photos of an accepted type, not already
 * selected, up to 30 in all. Past 30 the rest are left out and the spec's message is shown.
 */
export function planAdditions<F extends PhotoFile>(selected: readonly F[], chosen: readonly F[]): { accepted: F[]; refused: string[]; isFull: boolean } {
  const accepted: F[] = [];
  const refused: string[] = [];
  let isFull = false;
  for (const file of chosen) {
    if (!(PHOTO_TYPES as readonly string[]).includes(file.type)) {
      refused.push(`${file.name}: ${PHOTO_TYPE_MESSAGE}`);
      continue;
    }
    if ([...selected, ...accepted].some((f) => samePhotoFile(f, file))) continue;
    if (selected.length + accepted.length >= AI_PHOTO.maxImages) {
      isFull = true;
      continue;
    }
    accepted.push(file);
  }
  return { accepted, refused, isFull };
}

export type PrepareInput = { photoCount: number; gender: string; ethnicity: string; age: string };
export type PrepareField = 'photos' | 'gender' | 'ethnicity' | 'age';

const PREPARE_MESSAGES = {
  gender: 'Select a gender.',
  ethnicity: 'Select an ethnicity.',
  age: 'Enter an age as a whole number (1–120).',
} as const;

function photoCountMessage(count: number): string {
  return `Select ${AI_PHOTO.minImages}–${AI_PHOTO.maxImages} photos (${count} selected).`;
}

/** The age field as a number: digits only, 1 to 120; null when it is not one. */
export function parseAge(value: string): number | null {
  const text = value.trim();
  if (!/^\d{1,3}$/.test(text)) return null;
  const age = Number(text);
  return age >= 1 && age <= 120 ? age : null;
}

/** Spec §5: 10–30 images; gender and ethnicity required (of the spec's values); age numeric. */
export function validatePrepare(input: PrepareInput): Partial<Record<PrepareField, string>> {
  const errors: Partial<Record<PrepareField, string>> = {};
  if (input.photoCount < AI_PHOTO.minImages || input.photoCount > AI_PHOTO.maxImages) errors.photos = photoCountMessage(input.photoCount);
  if (!GENDERS.some((g) => g.value === input.gender)) errors.gender = PREPARE_MESSAGES.gender;
  if (!ETHNICITIES.some((e) => e.value === input.ethnicity)) errors.ethnicity = PREPARE_MESSAGES.ethnicity;
  if (parseAge(input.age) === null) errors.age = PREPARE_MESSAGES.age;
  return errors;
}

/** A photo is sent at most this large a side (the engines read 1024–2048 px)... */
const SEND_MAX_SIDE = 2048;
/** ...and as it is only up to this many bytes (30 of them fit the server's request easily). */
const SEND_MAX_BYTES = 3 * 1024 * 1024;

/** The size to send a photo at, or null when it goes as it is (small enough in pixels and bytes). */
export function scaledSize(size: { width: number; height: number }, bytes: number): { width: number; height: number } | null {
  const long = Math.max(size.width, size.height);
  if (long <= SEND_MAX_SIDE && bytes <= SEND_MAX_BYTES) return null;
  const k = Math.min(1, SEND_MAX_SIDE / long);
  return { width: Math.max(1, Math.round(size.width * k)), height: Math.max(1, Math.round(size.height * k)) };
}

/**
 * The server names a refused photo by its place (`images[3]: not a JPEG, PNG or WebP image`):
 * said with the file's name when it was chosen here.
 */
export function namePhotosIn(message: string, names: readonly string[]): string {
  return message.replace(/\bimages\[(\d+)\]/g, (whole, i: string) => names[Number(i)] ?? whole);
}

/** '3.4 MB' for the upload's size line. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The JSON body's size: base64 makes 4 characters of every 3 bytes. */
export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

// ---------------------------------------------------------------------------------------------
// Step 1's result: the per-photo verdicts of the upload check

/** A photo the check refused: its place in the upload, its file name (or 'Photo N'), why, and where it is stored. */
type RefusedPhoto = { index: number; name: string; reason: string | null; url: string | null };
/** The check's outcome: how many photos it judged (null when only refusals are known) and the refused ones. */
export type PhotoCheck = { total: number | null; refused: RefusedPhoto[] };

type RawVerdict = { index?: unknown; usable?: unknown; accepted?: unknown; ok?: unknown; status?: unknown; reason?: unknown };

function verdictUsable(raw: RawVerdict): boolean {
  for (const flag of [raw.usable, raw.accepted, raw.ok]) if (typeof flag === 'boolean') return flag;
  if (typeof raw.status === 'string') return ['ok', 'accepted', 'usable'].includes(raw.status);
  return !(typeof raw.reason === 'string' && raw.reason.trim());
}

/**
 * What the upload check said about the photos, from the task's result data: `photos` (one entry
 * per uploaded photo, in upload order: `index`, `ok`/`accepted`/`usable`, `reason`) or only the
 * ones that cannot be used as `rejected: [{index, reason}]`. A refused photo is named by the
 * file chosen in this session when known (`names`, upload order), else 'Photo N', and shown from
 * the URL the server stored it under (`input_data.images`). Null when the result has no verdicts
 * (a hosted trainer checks nothing up front).
 */
export function photoCheck(task: Pick<AiPhotoTask, 'result' | 'input_data'>, names: readonly string[] = []): PhotoCheck | null {
  const { result } = task;
  if (!result) return null;
  const stored = task.input_data?.images ?? [];
  const refusedPhoto = (raw: RawVerdict, position: number): RefusedPhoto => {
    const index = typeof raw.index === 'number' && Number.isInteger(raw.index) && raw.index >= 0 ? raw.index : position;
    const reason = typeof raw.reason === 'string' && raw.reason.trim() ? raw.reason.trim() : null;
    const url = stored[index];
    return { index, name: names[index] ?? `Photo ${index + 1}`, reason, url: typeof url === 'string' ? url : null };
  };
  const objects = (list: unknown[]) => list.filter((raw): raw is RawVerdict => !!raw && typeof raw === 'object');
  const list = Array.isArray(result.photos) ? result.photos : Array.isArray(result.images) ? result.images : null;
  if (list) {
    const verdicts = objects(list);
    return { total: verdicts.length, refused: verdicts.flatMap((raw, position) => (verdictUsable(raw) ? [] : [refusedPhoto(raw, position)])) };
  }
  if (Array.isArray(result.rejected)) return { total: stored.length || null, refused: objects(result.rejected).map(refusedPhoto) };
  return null;
}

// ---------------------------------------------------------------------------------------------
// Step 2, Train

/** The upload a train task learned from (spec §7 training_images_id). */
export function uploadIdOf(task: Pick<AiPhotoTask, 'input_data' | 'parent_id'>): string | null {
  return task.input_data?.training_images_id || task.parent_id || null;
}

/** The training a generate task used (spec §7 training_id). */
export function trainingIdOf(task: Pick<AiPhotoTask, 'input_data' | 'parent_id'>): string | null {
  return task.input_data?.training_id || task.parent_id || null;
}

// ---------------------------------------------------------------------------------------------
// Step 3, Generate

export const ASPECT_RATIOS = ['1:1', '3:4', '2:3', '9:16', '4:3', '3:2', '16:9'] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];
export const DEFAULT_ASPECT_RATIO: AspectRatio = '3:4';
/** The long side of a generated photo, in pixels. */
const LONG_SIDE = 1024;

/** Width and height for an aspect ratio: the long side 1024, the short one a multiple of 8. */
export function photoSize(ratio: AspectRatio): { width: number; height: number } {
  const [w, h] = ratio.split(':').map(Number) as [number, number];
  const short = Math.round((LONG_SIDE * Math.min(w, h)) / Math.max(w, h) / 8) * 8;
  return w >= h ? { width: LONG_SIDE, height: short } : { width: short, height: LONG_SIDE };
}

export const PROMPT_MESSAGE = 'Describe the photos you want.';

/** Prompt ideas: each names a look the local engine grades for (cinematic, vintage, business, noir, neon). */
export const PROMPT_IDEAS = [
  'a cinematic portrait at golden hour',
  'a vintage studio photo',
  'a business headshot in a bright office',
  'a black and white noir portrait',
  'a neon-lit cyberpunk street portrait',
] as const;

/** A seed for one Generate: a fresh one each time, so asking again gives new photos. */
export function randomSeed(random: () => number = Math.random): number {
  return Math.floor(random() * 2 ** 31);
}

/**
 * The photos of a generate task as they arrive: `image_urls` in order, with empty places up to
 * the 4 asked for while it runs (a finished task shows what it made).
 */
export function photoSlots(task: Pick<AiPhotoTask, 'status' | 'image_url' | 'image_urls'>): (string | null)[] {
  const urls = (task.image_urls ?? []).filter((u): u is string => typeof u === 'string' && !!u);
  if (urls.length === 0 && task.image_url) urls.push(task.image_url);
  if (isTerminalStatus(task.status)) return urls;
  return [...urls, ...Array<null>(Math.max(0, AI_PHOTO.generatedImages - urls.length)).fill(null)];
}

/** How the server says the photos were made (result.note: the local engine's template label). */
export function resultNote(task: Pick<AiPhotoTask, 'result'>): string | null {
  const note = task.result?.note;
  return typeof note === 'string' && note.trim() ? note.trim() : null;
}

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

/** `<task id>-<n>.<ext>`, the extension from the fetched picture's type (else its URL, else png). */
export function photoFileName(taskId: string, index: number, blobType: string, url: string): string {
  const fromUrl = /\.(png|jpe?g|webp|gif)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase().replace('jpeg', 'jpg');
  return `${taskId}-${index + 1}.${EXTENSIONS[blobType] ?? fromUrl ?? 'png'}`;
}

// ---------------------------------------------------------------------------------------------
// The wizard (spec §4)

export const WIZARD_STEPS = ['Prepare', 'Train', 'Generate'] as const;
export type WizardStep = 0 | 1 | 2;

export type WizardView =
  /** Nothing started: the Prepare form (also where the onboarding's "Upload photos" lands). */
  | { kind: 'prepare'; step: 0 }
  | { kind: 'loading'; step: WizardStep | null }
  | { kind: 'error'; step: null }
  /** An upload check running (step 1), a training running (step 2), photos being made (step 3). */
  | { kind: 'running'; step: WizardStep; task: AiPhotoTask }
  | { kind: 'failed'; step: WizardStep; task: AiPhotoTask; message: string }
  /** A finished upload: the trigger word and Train (step 2). */
  | { kind: 'train'; step: 1; upload: AiPhotoTask }
  /** A finished training: prompt and Generate (step 3). */
  | { kind: 'generate'; step: 2; trainingId: string; task: AiPhotoTask }
  /** A finished generation: its photos, and Generate again from the same training (step 3). */
  | { kind: 'photos'; step: 2; trainingId: string | null; task: AiPhotoTask };

const STEP_OF_TYPE: Record<string, WizardStep> = { [UPLOAD_TYPE]: 0, [TRAIN_TYPE]: 1, [GENERATE_TYPE]: 2 };

/** Spec §4: what the wizard shows for the task named by ?taskId= (an upload, a training or a generation). */
export function wizardView(taskId: string | null, state: LiveTaskState<AiPhotoTask>): WizardView {
  if (!taskId) return { kind: 'prepare', step: 0 };
  if (state.status === 'error') return { kind: 'error', step: null };
  if (state.status !== 'ready' || state.task.id !== taskId) return { kind: 'loading', step: null };
  const { task } = state;
  const step = STEP_OF_TYPE[task.type] ?? 0;
  const phase = taskPhase(task.status);
  if (phase === 'failed') return { kind: 'failed', step, task, message: failureMessage(task) };
  if (phase === 'active') return { kind: 'running', step, task };
  if (task.type === UPLOAD_TYPE) return { kind: 'train', step: 1, upload: task };
  if (task.type === TRAIN_TYPE) return { kind: 'generate', step: 2, trainingId: task.id, task };
  return { kind: 'photos', step: 2, trainingId: trainingIdOf(task), task };
}

/** Steps before the current one are done; a generation in step 3 leaves nothing undone; no step while a task loads. */
export function stepState(index: WizardStep, view: WizardView): 'done' | 'current' | 'upcoming' {
  const current = view.step;
  if (current === null) return 'upcoming';
  if (index < current) return 'done';
  if (index === current) return view.kind === 'photos' ? 'done' : 'current';
  return 'upcoming';
}

// ---------------------------------------------------------------------------------------------
// The side list (spec §2: trained models and tasks, filterable)

export const LIST_FILTERS = ['All Tasks', 'Model Training', 'Image Upload'] as const;
export type ListFilter = (typeof LIST_FILTERS)[number];

/** One row of the side list: a task read without its (possibly large) result. */
export type AiPhotoListItem = {
  id: string;
  type: string;
  status: string;
  percentage: number | null;
  created_at: string;
  expires_at: string | null;
  prompt: string | null;
  trigger_word: string | null;
  gender: string | null;
  ethnicity: string | null;
  age: string | null;
};

export function filterTasks<T extends { type: string }>(tasks: readonly T[], filter: ListFilter): T[] {
  if (filter === 'Model Training') return tasks.filter((t) => t.type === TRAIN_TYPE);
  if (filter === 'Image Upload') return tasks.filter((t) => t.type === UPLOAD_TYPE);
  return [...tasks];
}

export const TYPE_LABELS: Record<string, string> = { [UPLOAD_TYPE]: 'Image Upload', [TRAIN_TYPE]: 'Model Training', [GENERATE_TYPE]: 'AI Photos' };

/** Spec §4: Train now for a finished upload, Generate for a finished training; anything else is opened. */
export function listAction(task: { type: string; status: string }): 'Train now' | 'Generate' | 'Open' {
  const done = taskPhase(task.status) === 'done';
  if (done && task.type === UPLOAD_TYPE) return 'Train now';
  if (done && task.type === TRAIN_TYPE) return 'Generate';
  return 'Open';
}

/** The line under a list row's title: who the photos show, the model's trigger word, the prompt. */
export function listDetail(item: AiPhotoListItem): string {
  if (item.type === TRAIN_TYPE) return item.trigger_word ? `Trigger word: ${item.trigger_word}` : '';
  if (item.type === UPLOAD_TYPE) {
    return [item.gender, item.ethnicity, item.age ? `age ${item.age}` : null].filter(Boolean).join(', ');
  }
  return item.prompt ?? '';
}

/** A live task's newer status folded into the list row that shows it. */
export function withLiveTask(items: readonly AiPhotoListItem[], task: LiveTask | null): AiPhotoListItem[] {
  if (!task) return [...items];
  return items.map((item) => (item.id === task.id ? { ...item, status: task.status, percentage: task.percentage } : item));
}
