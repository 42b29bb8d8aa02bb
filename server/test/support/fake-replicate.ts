/**
 * A stand-in for Replicate's predictions, trainings and files APIs on a loopback port,
 * following its documented protocol (upstream-protocols.md C2): `Authorization: Bearer
 * <token>`, POST /v1/predictions {version, input} and POST /v1/models/{owner}/{name}/predictions
 * {input} answering 201 with the prediction, GET /v1/predictions/{id}, POST
 * /v1/predictions/{id}/cancel, statuses starting → processing → succeeded | failed | canceled
 * (aborted for a deadline missed before the start), errors as problem details `{ title,
 * detail, status }`, 429 with `retry-after`. Every GET of a prediction advances it one step of
 * its scenario. Outputs are served from /files/<id>.png, or /files/<id>-<n>.png for several
 * (Replicate's delivery host needs no token).
 *
 * A model may declare its input schema (`schema`: each input's type, enum, range, whether it
 * is required) and its output (`output`: a picture, video or song file, one or a list, or
 * text). Its inputs are then checked as Replicate checks them, answering 422 `- input.<name>:
 * …`; stricter than Replicate in one way: an input the schema does not document is refused
 * too, so a misspelt input name fails a contract test instead of being quietly ignored. Its
 * files are real small media (FAKE_OUTPUT_PNG, _MP4, _WAV, _MP3) served as /files/<id>.<ext>.
 *
 * Files: POST /v1/files (multipart, the file in `content`) answers 201 with the file object
 * whose `urls.get` a model input may name; GET and DELETE /v1/files/{id}. Trainings: POST
 * /v1/models/{owner}/{name}/versions/{version}/trainings {destination, input} on a known
 * trainer version into an existing destination model; `input_images` must name an uploaded
 * file, which is read as a ZIP (stored or deflated entries, CRC checked) of jpeg/png/webp
 * photos; GET /v1/trainings/{id} advances like a prediction; success adds a version to the
 * destination (output `{ version: "<owner>/<name>:<id>", weights }`) on which predictions take
 * `prompt` and return `num_outputs` pictures.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, inflateRawSync } from 'node:zlib';

interface FakeStep {
  status: 'starting' | 'processing';
  logs?: string;
}

type FakeScenario =
  | { outcome: 'success'; steps?: FakeStep[]; output?: 'file' | 'list' | 'none'; logs?: string }
  | { outcome: 'failure'; steps?: FakeStep[]; error: string }
  | { outcome: 'aborted' }
  /** Never finishes (until cancelled). */
  | { outcome: 'hang' };

/** One input of a model's schema, as its OpenAPI schema on Replicate documents it. */
interface FakeInput {
  /** `uri`: a file input (an http(s) URL, a data URI or a Files API URL of an existing file). */
  type: 'string' | 'integer' | 'number' | 'boolean' | 'uri' | 'array';
  required?: boolean;
  enum?: readonly (string | number)[];
  min?: number;
  max?: number;
  /** Longest string. */
  maxLength?: number;
}

/** What a succeeded prediction of the model outputs. */
interface FakeOutput {
  type: 'png' | 'mp4' | 'wav' | 'mp3' | 'text';
  /** A list of files (a list of one unless `count` names the input saying how many). */
  list?: boolean;
  count?: string;
  /** The input choosing the file type (e.g. `output_format`: wav or mp3), when the model has one. */
  format?: string;
}

export interface FakeModel {
  owner: string;
  name: string;
  version: string;
  /** Required input fields (each a URL or a data URI). */
  inputs: string[];
  /** A version trained here: takes `prompt` and answers `num_outputs` pictures. */
  trained?: boolean;
  /** The documented inputs; when given, every input is checked against it. */
  schema?: Readonly<Record<string, FakeInput>>;
  output?: FakeOutput;
}

interface FakePrediction {
  id: string;
  model: FakeModel;
  input: Record<string, unknown>;
  scenario: FakeScenario;
  gets: number;
  canceled: boolean;
  dataRemoved: boolean;
}

interface FakeFile {
  id: string;
  name: string;
  contentType: string;
  data: Buffer;
  deleted: boolean;
}

interface FakeTraining {
  id: string;
  trainer: FakeModel;
  destination: string;
  input: Record<string, unknown>;
  /** The photos of the input ZIP: entry names and bytes. */
  photos: { name: string; data: Buffer }[];
  scenario: FakeScenario;
  gets: number;
  canceled: boolean;
}

interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | null;
  status: number;
}

type Route = 'create' | 'get' | 'cancel' | 'upload' | 'train' | 'getTraining' | 'cancelTraining' | 'file';

export interface FakeReplicate {
  /** Base URL of the API (no /v1). */
  baseUrl: string;
  requests: RecordedRequest[];
  predictions: Map<string, FakePrediction>;
  files: Map<string, FakeFile>;
  trainings: Map<string, FakeTraining>;
  /** The next `times` calls of `route` answer 429 with this `retry-after` (null: none). */
  throttle(route: Route, times: number, retryAfter: string | null): void;
  /** The next `times` calls of `route` answer `status` (a 5xx). */
  failNext(route: Route, times: number, status: number): void;
  /** As Replicate does about an hour later: input and output deleted. */
  removeData(id: string): void;
  close(): Promise<void>;
}

export const FAKE_FACESWAP_MODEL: FakeModel = {
  owner: 'cdingram',
  name: 'face-swap',
  version: 'd1d6ea8c8be89d664a07a457526f7128109dee7030fdac424788d762c71ed111',
  inputs: ['swap_image', 'input_image'],
};

/** The trainer the LoRA adapter defaults to, as the fake knows it. */
export const FAKE_LORA_TRAINER: FakeModel = {
  owner: 'ostris',
  name: 'flux-dev-lora-trainer',
  version: 'e440909d3512c31646ee2e0c7d6f6f4923224863a6a10c494606e79fb5844497',
  inputs: ['input_images'],
};

/** A version id for a fake model: 64 hex digits derived from its name. */
const versionOf = (name: string) => createHash('sha256').update(name).digest('hex');

const FLUX_RATIOS = ['1:1', '16:9', '21:9', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3', '9:16', '9:21'] as const;
const FLUX_FORMAT = { type: 'string', enum: ['webp', 'jpg', 'png'] } as const;
const SEED = { type: 'integer' } as const;

/**
 * Black Forest Labs' official Flux models as Replicate documents their inputs (schema pages
 * of black-forest-labs/flux-schnell, -dev, -pro, -1.1-pro, -1.1-pro-ultra).
 */
export const FAKE_FLUX_MODELS: readonly FakeModel[] = [
  {
    owner: 'black-forest-labs',
    name: 'flux-schnell',
    version: versionOf('flux-schnell'),
    inputs: [],
    schema: {
      prompt: { type: 'string', required: true },
      aspect_ratio: { type: 'string', enum: FLUX_RATIOS },
      num_outputs: { type: 'integer', min: 1, max: 4 },
      num_inference_steps: { type: 'integer', min: 1, max: 4 },
      seed: SEED,
      output_format: FLUX_FORMAT,
      output_quality: { type: 'integer', min: 0, max: 100 },
      disable_safety_checker: { type: 'boolean' },
      go_fast: { type: 'boolean' },
      megapixels: { type: 'string', enum: ['1', '0.25'] },
    },
    output: { type: 'png', list: true, count: 'num_outputs' },
  },
  {
    owner: 'black-forest-labs',
    name: 'flux-dev',
    version: versionOf('flux-dev'),
    inputs: [],
    schema: {
      prompt: { type: 'string', required: true },
      aspect_ratio: { type: 'string', enum: FLUX_RATIOS },
      image: { type: 'uri' },
      prompt_strength: { type: 'number', min: 0, max: 1 },
      num_outputs: { type: 'integer', min: 1, max: 4 },
      num_inference_steps: { type: 'integer', min: 1, max: 50 },
      guidance: { type: 'number', min: 0, max: 10 },
      seed: SEED,
      output_format: FLUX_FORMAT,
      output_quality: { type: 'integer', min: 0, max: 100 },
      disable_safety_checker: { type: 'boolean' },
      go_fast: { type: 'boolean' },
      megapixels: { type: 'string', enum: ['1', '0.25'] },
    },
    output: { type: 'png', list: true, count: 'num_outputs' },
  },
  {
    owner: 'black-forest-labs',
    name: 'flux-pro',
    version: versionOf('flux-pro'),
    inputs: [],
    schema: {
      prompt: { type: 'string', required: true },
      aspect_ratio: { type: 'string', enum: [...FLUX_RATIOS, 'custom'] },
      width: { type: 'integer', min: 256, max: 1440 },
      height: { type: 'integer', min: 256, max: 1440 },
      steps: { type: 'integer', min: 1, max: 50 },
      guidance: { type: 'number', min: 2, max: 5 },
      interval: { type: 'number', min: 1, max: 4 },
      seed: SEED,
      safety_tolerance: { type: 'integer', min: 1, max: 6 },
      prompt_upsampling: { type: 'boolean' },
      image_prompt: { type: 'uri' },
      output_format: FLUX_FORMAT,
      output_quality: { type: 'integer', min: 0, max: 100 },
    },
    output: { type: 'png' },
  },
  {
    owner: 'black-forest-labs',
    name: 'flux-1.1-pro',
    version: versionOf('flux-1.1-pro'),
    inputs: [],
    schema: {
      prompt: { type: 'string', required: true },
      aspect_ratio: { type: 'string', enum: [...FLUX_RATIOS, 'custom'] },
      width: { type: 'integer', min: 256, max: 1440 },
      height: { type: 'integer', min: 256, max: 1440 },
      seed: SEED,
      safety_tolerance: { type: 'integer', min: 1, max: 6 },
      prompt_upsampling: { type: 'boolean' },
      image_prompt: { type: 'uri' },
      output_format: FLUX_FORMAT,
      output_quality: { type: 'integer', min: 0, max: 100 },
    },
    output: { type: 'png' },
  },
  {
    owner: 'black-forest-labs',
    name: 'flux-1.1-pro-ultra',
    version: versionOf('flux-1.1-pro-ultra'),
    inputs: [],
    schema: {
      prompt: { type: 'string', required: true },
      aspect_ratio: { type: 'string', enum: FLUX_RATIOS },
      seed: SEED,
      safety_tolerance: { type: 'integer', min: 1, max: 6 },
      raw: { type: 'boolean' },
      image_prompt: { type: 'uri' },
      image_prompt_strength: { type: 'number', min: 0, max: 1 },
      output_format: { type: 'string', enum: ['jpg', 'png'] },
    },
    output: { type: 'png' },
  },
];

const IDEOGRAM_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '16:10', '10:16', '3:1', '1:3'] as const;

/**
 * Ideogram's models on Replicate (ideogram-ai/ideogram-v2, -v2-turbo: with negative_prompt and
 * the Render 3D and Anime styles; -v3-turbo: without), and the upscaler and describer the
 * Ideogram family suggests (nightmareai/real-esrgan, methexis-inc/img2prompt: text out), at
 * the versions it pins.
 */
export const FAKE_IDEOGRAM_MODELS: readonly FakeModel[] = [
  ...['ideogram-v2', 'ideogram-v2-turbo'].map(
    (name): FakeModel => ({
      owner: 'ideogram-ai',
      name,
      version: versionOf(name),
      inputs: [],
      schema: {
        prompt: { type: 'string', required: true },
        negative_prompt: { type: 'string' },
        aspect_ratio: { type: 'string', enum: IDEOGRAM_RATIOS },
        resolution: { type: 'string' },
        style_type: { type: 'string', enum: ['None', 'Auto', 'General', 'Realistic', 'Design', 'Render 3D', 'Anime'] },
        magic_prompt_option: { type: 'string', enum: ['Auto', 'On', 'Off'] },
        seed: { type: 'integer', min: 0, max: 2147483647 },
        image: { type: 'uri' },
        mask: { type: 'uri' },
      },
      output: { type: 'png' },
    }),
  ),
  {
    owner: 'ideogram-ai',
    name: 'ideogram-v3-turbo',
    version: versionOf('ideogram-v3-turbo'),
    inputs: [],
    schema: {
      prompt: { type: 'string', required: true },
      aspect_ratio: { type: 'string', enum: IDEOGRAM_RATIOS },
      resolution: { type: 'string' },
      style_type: { type: 'string', enum: ['None', 'Auto', 'General', 'Realistic', 'Design'] },
      style_preset: { type: 'string' },
      magic_prompt_option: { type: 'string', enum: ['Auto', 'On', 'Off'] },
      seed: { type: 'integer', min: 0, max: 2147483647 },
      image: { type: 'uri' },
      mask: { type: 'uri' },
      style_reference_images: { type: 'array' },
    },
    output: { type: 'png' },
  },
  {
    owner: 'nightmareai',
    name: 'real-esrgan',
    version: '42fed1c4974146d4d2414e2be2c5277c7fcf05fcc3a73abf41610695738c1d7b',
    inputs: [],
    schema: { image: { type: 'uri', required: true }, scale: { type: 'number', min: 0, max: 10 }, face_enhance: { type: 'boolean' } },
    output: { type: 'png' },
  },
  {
    owner: 'methexis-inc',
    name: 'img2prompt',
    version: '50adaf2d3ad20a6f911a8a9e3ccf777b263b8596fbd2c8fc26e8888f8a0edbb5',
    inputs: [],
    schema: { image: { type: 'uri', required: true } },
    output: { type: 'text', list: false },
  },
];

/**
 * Video models on Replicate as their schema pages document them: luma/ray-flash-2-720p (Luma
 * Ray 2), kwaivgi/kling-v1.6-standard, runwayml/gen4-turbo (an image is required). Each
 * outputs one MP4.
 */
export const FAKE_VIDEO_MODELS: readonly FakeModel[] = [
  {
    owner: 'luma',
    name: 'ray-flash-2-720p',
    version: versionOf('ray-flash-2-720p'),
    inputs: [],
    schema: {
      prompt: { type: 'string', required: true },
      duration: { type: 'integer', enum: [5, 9] },
      aspect_ratio: { type: 'string', enum: ['1:1', '3:4', '4:3', '9:16', '16:9', '9:21', '21:9'] },
      loop: { type: 'boolean' },
      concepts: { type: 'array' },
      start_image: { type: 'uri' },
      end_image: { type: 'uri' },
    },
    output: { type: 'mp4' },
  },
  {
    owner: 'kwaivgi',
    name: 'kling-v1.6-standard',
    version: versionOf('kling-v1.6-standard'),
    inputs: [],
    schema: {
      prompt: { type: 'string', required: true },
      negative_prompt: { type: 'string' },
      aspect_ratio: { type: 'string', enum: ['16:9', '9:16', '1:1'] },
      start_image: { type: 'uri' },
      reference_images: { type: 'array' },
      cfg_scale: { type: 'number', min: 0, max: 1 },
      duration: { type: 'integer', enum: [5, 10] },
    },
    output: { type: 'mp4' },
  },
  {
    owner: 'runwayml',
    name: 'gen4-turbo',
    version: versionOf('gen4-turbo'),
    inputs: [],
    schema: {
      prompt: { type: 'string' },
      image: { type: 'uri', required: true },
      duration: { type: 'integer', enum: [5, 10] },
      aspect_ratio: { type: 'string', enum: ['16:9', '9:16', '4:3', '3:4', '1:1', '21:9'] },
      seed: SEED,
    },
    output: { type: 'mp4' },
  },
];

/**
 * Music models on Replicate: meta/musicgen (the pinned version public integrations run;
 * instrumental, optionally continuing an input song; WAV or MP3 by `output_format`) and
 * minimax/music-1.5 (a song sung from lyrics in the style of a prompt; MP3).
 */
export const FAKE_AUDIO_MODELS: readonly FakeModel[] = [
  {
    owner: 'meta',
    name: 'musicgen',
    version: '671ac645ce5e552cc63a54a2bbff63fcf798043055d2dac5fc9e36a837eedcfb',
    inputs: [],
    schema: {
      prompt: { type: 'string' },
      model_version: { type: 'string', enum: ['stereo-melody-large', 'stereo-large', 'melody-large', 'large'] },
      duration: { type: 'integer', min: 1, max: 300 },
      input_audio: { type: 'uri' },
      continuation: { type: 'boolean' },
      continuation_start: { type: 'integer', min: 0 },
      continuation_end: { type: 'integer', min: 0 },
      multi_band_diffusion: { type: 'boolean' },
      normalization_strategy: { type: 'string', enum: ['loudness', 'clip', 'peak', 'rms'] },
      top_k: { type: 'integer' },
      top_p: { type: 'number' },
      temperature: { type: 'number' },
      classifier_free_guidance: { type: 'integer' },
      output_format: { type: 'string', enum: ['wav', 'mp3'] },
      seed: SEED,
    },
    output: { type: 'wav', format: 'output_format' },
  },
  {
    owner: 'minimax',
    name: 'music-1.5',
    version: versionOf('music-1.5'),
    inputs: [],
    schema: {
      prompt: { type: 'string', required: true, maxLength: 300 },
      lyrics: { type: 'string', required: true, maxLength: 600 },
      audio_format: { type: 'string', enum: ['mp3', 'wav', 'pcm'] },
      sample_rate: { type: 'integer', enum: [16000, 24000, 32000, 44100] },
      bitrate: { type: 'integer', enum: [32000, 64000, 128000, 256000] },
    },
    output: { type: 'mp3', format: 'audio_format' },
  },
];

export interface FakeReplicateOptions {
  token: string;
  models?: FakeModel[];
  scenario?: (input: Record<string, unknown>) => FakeScenario;
  /** Trainer versions trainings can be created on. Default [FAKE_LORA_TRAINER]. */
  trainers?: FakeModel[];
  /** Existing models of the account (`owner/name`) trainings may push to. */
  destinations?: string[];
  trainingScenario?: (input: Record<string, unknown>) => FakeScenario;
}

const TRAINING_STEPS: FakeStep[] = [
  { status: 'starting' },
  { status: 'processing', logs: 'flux_train_replicate:  20%|##        | 200/1000' },
  { status: 'processing', logs: 'flux_train_replicate:  20%|##        | 200/1000\nflux_train_replicate:  80%|########  | 800/1000' },
];

/**
 * The entries of a ZIP archive (stored or deflated), read from its central directory with
 * each CRC checked; throws as Python's zipfile would on anything else.
 */
export function readZip(zip: Buffer): { name: string; data: Buffer }[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0 || zip.length - end < 22) throw new Error('zipfile.BadZipFile: File is not a zip file');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: { name: string; data: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('zipfile.BadZipFile: Bad magic number for central directory');
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error('zipfile.BadZipFile: Bad magic number for file header');
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const stored = zip.subarray(start, start + size);
    const data = method === 0 ? Buffer.from(stored) : method === 8 ? inflateRawSync(stored) : undefined;
    if (!data) throw new Error(`NotImplementedError: compression method ${method}`);
    if (crc32(data) !== crc) throw new Error(`zipfile.BadZipFile: Bad CRC-32 for file '${name}'`);
    entries.push({ name, data });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const isPhoto = (data: Buffer) =>
  (data[0] === 0xff && data[1] === 0xd8) || data.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47])) || data.subarray(8, 12).toString() === 'WEBP';

const DEFAULT_STEPS: FakeStep[] = [
  { status: 'starting' },
  { status: 'processing', logs: 'swapping\n 10%|#         |' },
  { status: 'processing', logs: 'swapping\n 10%|#         |\n 60%|######    |' },
];

/** A 1×1 PNG, the picture every successful prediction outputs. */
export const FAKE_OUTPUT_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201a7d4a3a30000000049454e44ae426082',
  'hex',
);

/** 0.25 s of a 440 Hz tone, 8 kHz mono 16-bit PCM: a real, playable WAV, what the audio models output. */
export const FAKE_OUTPUT_WAV = (() => {
  const rate = 8000;
  const samples = rate / 4;
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) wav.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  return wav;
})();

/**
 * Four frames of silence as MPEG-1 Layer III (128 kbit/s, 44.1 kHz, stereo; 417 bytes each):
 * each a frame header and all-zero side information and data, which decoders play as silence.
 */
export const FAKE_OUTPUT_MP3 = (() => {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x00]);
  return Buffer.concat([frame, frame, frame, frame]);
})();

/**
 * A structurally valid MP4 (ISO BMFF): an `ftyp` box (isom) and a `moov` with a movie header
 * and no tracks. Not a playable video; what the worker checks is the type by the bytes.
 */
export const FAKE_OUTPUT_MP4 = (() => {
  const ftyp = Buffer.alloc(24);
  ftyp.writeUInt32BE(24, 0);
  ftyp.write('ftypisom', 4, 'ascii');
  ftyp.writeUInt32BE(0x200, 12);
  ftyp.write('isommp41', 16, 'ascii');
  const mvhd = Buffer.alloc(108);
  mvhd.writeUInt32BE(108, 0);
  mvhd.write('mvhd', 4, 'ascii');
  mvhd.writeUInt32BE(1000, 20); // timescale
  mvhd.writeUInt32BE(0x00010000, 28); // rate 1.0
  mvhd.writeUInt16BE(0x0100, 32); // volume 1.0
  // the identity matrix
  for (const [i, value] of [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].entries()) mvhd.writeUInt32BE(value, 44 + i * 4);
  mvhd.writeUInt32BE(1, 104); // next track id
  const moov = Buffer.alloc(8);
  moov.writeUInt32BE(8 + mvhd.length, 0);
  moov.write('moov', 4, 'ascii');
  return Buffer.concat([ftyp, moov, mvhd]);
})();

const MEDIA: Readonly<Record<string, { data: Buffer; contentType: string }>> = {
  png: { data: FAKE_OUTPUT_PNG, contentType: 'image/png' },
  mp4: { data: FAKE_OUTPUT_MP4, contentType: 'video/mp4' },
  wav: { data: FAKE_OUTPUT_WAV, contentType: 'audio/wav' },
  mp3: { data: FAKE_OUTPUT_MP3, contentType: 'audio/mpeg' },
};

/** The text a model with a `text` output answers, as a list of tokens (how language models stream it). */
export const FAKE_OUTPUT_TEXT = ['A lighthouse ', 'on a cliff ', 'at sunset'];

function problem(res: ServerResponse, status: number, title: string, detail: string, headers: Record<string, string> = {}): number {
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  res.end(JSON.stringify({ title, detail, status }));
  return status;
}

function json(res: ServerResponse, status: number, body: unknown): number {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
  return status;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseJson(raw: Buffer): Record<string, unknown> | null {
  if (raw.length === 0) return null;
  try {
    return JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

const isImageValue = (value: unknown) => typeof value === 'string' && (/^https?:\/\//.test(value) || /^data:image\/[a-z]+;base64,/.test(value));

const ROUTES: Route[] = ['create', 'get', 'cancel', 'upload', 'train', 'getTraining', 'cancelTraining', 'file'];

export async function startFakeReplicate(options: FakeReplicateOptions): Promise<FakeReplicate> {
  const models = [...(options.models ?? [FAKE_FACESWAP_MODEL])];
  const trainers = options.trainers ?? [FAKE_LORA_TRAINER];
  const destinations = new Set(options.destinations ?? []);
  const predictions = new Map<string, FakePrediction>();
  const files = new Map<string, FakeFile>();
  const trainings = new Map<string, FakeTraining>();
  const requests: RecordedRequest[] = [];
  const throttles = Object.fromEntries(ROUTES.map((r) => [r, { times: 0, retryAfter: null }])) as Record<Route, { times: number; retryAfter: string | null }>;
  const failures = Object.fromEntries(ROUTES.map((r) => [r, { times: 0, status: 500 }])) as Record<Route, { times: number; status: number }>;
  let nextId = 1;
  let baseUrl = '';

  function view(p: FakePrediction): Record<string, unknown> {
    const { scenario } = p;
    const steps = scenario.outcome === 'success' || scenario.outcome === 'failure' ? (scenario.steps ?? DEFAULT_STEPS) : [];
    const common = {
      id: p.id,
      model: `${p.model.owner}/${p.model.name}`,
      version: p.model.version,
      input: p.dataRemoved ? {} : p.input,
      created_at: '2026-11-24T10:00:00.000Z',
      urls: { get: `${baseUrl}/v1/predictions/${p.id}`, cancel: `${baseUrl}/v1/predictions/${p.id}/cancel` },
      data_removed: p.dataRemoved,
    };
    const active = (step: FakeStep | undefined) => ({ ...common, status: step?.status ?? 'starting', output: null, error: null, logs: step?.logs ?? '' });
    if (p.canceled) return { ...common, status: 'canceled', output: null, error: null, logs: '' };
    if (scenario.outcome === 'aborted') return { ...common, status: 'aborted', output: null, error: null, logs: '' };
    if (scenario.outcome === 'hang' || p.gets < steps.length) return active(steps[Math.min(p.gets, steps.length - 1)]);
    if (scenario.outcome === 'failure') return { ...common, status: 'failed', output: null, error: scenario.error, logs: 'Traceback …' };
    const file = `${baseUrl}/files/${p.id}.png`;
    let output: unknown = p.dataRemoved || scenario.output === 'none' ? null : scenario.output === 'list' ? [file] : file;
    if (p.model.trained && output !== null) {
      output = Array.from({ length: Number(p.input.num_outputs ?? 1) }, (_, i) => `${baseUrl}/files/${p.id}-${i + 1}.png`);
    }
    if (p.model.output && output !== null) output = declaredOutput(p, p.model.output);
    return { ...common, status: 'succeeded', output, error: null, logs: scenario.logs ?? 'done', metrics: { predict_time: 1.2 } };
  }

  /** The output a model declares: text, one file, or a list of `count` files. */
  function declaredOutput(p: FakePrediction, declared: FakeOutput): unknown {
    if (declared.type === 'text') return declared.list === false ? FAKE_OUTPUT_TEXT.join('') : FAKE_OUTPUT_TEXT;
    const chosen = declared.format ? p.input[declared.format] : undefined;
    const ext = typeof chosen === 'string' && chosen in MEDIA ? chosen : declared.type;
    if (!declared.list) return `${baseUrl}/files/${p.id}.${ext}`;
    const count = declared.count ? Number(p.input[declared.count] ?? 1) : 1;
    return Array.from({ length: count }, (_, i) => `${baseUrl}/files/${p.id}-${i + 1}.${ext}`);
  }

  function trainingView(t: FakeTraining): Record<string, unknown> {
    const { scenario } = t;
    const steps = scenario.outcome === 'success' || scenario.outcome === 'failure' ? (scenario.steps ?? TRAINING_STEPS) : [];
    const common = {
      id: t.id,
      model: `${t.trainer.owner}/${t.trainer.name}`,
      version: t.trainer.version,
      destination: t.destination,
      input: t.input,
      created_at: '2026-11-24T10:00:00.000Z',
      urls: { get: `${baseUrl}/v1/trainings/${t.id}`, cancel: `${baseUrl}/v1/trainings/${t.id}/cancel` },
    };
    const active = (step: FakeStep | undefined) => ({ ...common, status: step?.status ?? 'starting', output: null, error: null, logs: step?.logs ?? '' });
    if (t.canceled) return { ...common, status: 'canceled', output: null, error: null, logs: '' };
    if (scenario.outcome === 'aborted') return { ...common, status: 'aborted', output: null, error: null, logs: '' };
    if (scenario.outcome === 'hang' || t.gets < steps.length) return active(steps[Math.min(t.gets, steps.length - 1)]);
    if (scenario.outcome === 'failure') return { ...common, status: 'failed', output: null, error: scenario.error, logs: 'Traceback …' };
    const version = trainedVersion(t);
    return {
      ...common,
      status: 'succeeded',
      output: { version: `${t.destination}:${version}`, weights: `${baseUrl}/files/${t.id}-weights.tar` },
      error: null,
      logs: 'flux_train_replicate: 100%|##########| 1000/1000',
      metrics: { predict_time: 600 },
    };
  }

  /** The destination's version a successful training made (registered on first sight). */
  function trainedVersion(t: FakeTraining): string {
    const version = createHash('sha256').update(t.id).digest('hex');
    if (!models.some((m) => m.version === version)) {
      const [owner, name] = t.destination.split('/');
      models.push({ owner, name, version, inputs: [], trained: true });
    }
    return version;
  }

  function fileView(f: FakeFile): Record<string, unknown> {
    return {
      id: f.id,
      name: f.name,
      content_type: f.contentType,
      size: f.data.length,
      etag: createHash('md5').update(f.data).digest('hex'),
      checksums: { sha256: createHash('sha256').update(f.data).digest('hex') },
      metadata: {},
      created_at: '2026-11-24T10:00:00.000Z',
      expires_at: '2026-11-25T10:00:00.000Z',
      urls: { get: `${baseUrl}/v1/files/${f.id}` },
    };
  }

  async function upload(res: ServerResponse, req: IncomingMessage, raw: Buffer): Promise<number> {
    let form: FormData;
    try {
      form = await new Request('http://fake/v1/files', {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body: new Uint8Array(raw),
      }).formData();
    } catch {
      return problem(res, 400, 'Bad request', 'The request body must be multipart/form-data.');
    }
    const content = form.get('content');
    if (!(content instanceof Blob)) return problem(res, 422, 'Input validation failed', '- content: a file is required');
    const id = `file${String(nextId++).padStart(6, '0')}`;
    const file: FakeFile = {
      id,
      name: content instanceof File ? content.name : 'blob',
      contentType: content.type || 'application/octet-stream',
      data: Buffer.from(await content.arrayBuffer()),
      deleted: false,
    };
    files.set(id, file);
    return json(res, 201, fileView(file));
  }

  function train(res: ServerResponse, trainer: FakeModel, body: Record<string, unknown> | null): number {
    const destination = body?.destination;
    if (typeof destination !== 'string' || !destinations.has(destination)) {
      return problem(res, 404, 'Not found', `The destination model ${String(destination)} does not exist. Create it first.`);
    }
    const input = body?.input;
    if (typeof input !== 'object' || input === null) return problem(res, 422, 'Input validation failed', '- input: Invalid type. Expected: object');
    const values = input as Record<string, unknown>;
    if (typeof values.trigger_word !== 'string') return problem(res, 422, 'Input validation failed', '- input: trigger_word must be a string');
    const fileId = typeof values.input_images === 'string' ? new RegExp(`^${baseUrl}/v1/files/([^/]+)$`).exec(values.input_images)?.[1] : undefined;
    const file = fileId ? files.get(fileId) : undefined;
    if (!file || file.deleted) return problem(res, 422, 'Input validation failed', '- input: input_images must be the URL of a file');
    const id = `train${String(nextId++).padStart(6, '0')}`;
    let photos: { name: string; data: Buffer }[] = [];
    let scenario: FakeScenario;
    try {
      photos = readZip(file.data).filter((e) => isPhoto(e.data));
      scenario =
        photos.length === 0
          ? { outcome: 'failure', error: 'ValueError: No images found in input_images' }
          : (options.trainingScenario ?? (() => ({ outcome: 'success' }) as FakeScenario))(values);
    } catch (error) {
      scenario = { outcome: 'failure', error: (error as Error).message };
    }
    const training: FakeTraining = { id, trainer, destination, input: values, photos, scenario, gets: 0, canceled: false };
    trainings.set(id, training);
    return json(res, 201, { ...trainingView(training), status: 'starting', logs: '' });
  }

  /** Replicate's 422 lines for inputs that do not fit the schema. */
  function schemaProblems(schema: Readonly<Record<string, FakeInput>>, values: Record<string, unknown>): string[] {
    const problems: string[] = [];
    for (const [name, spec] of Object.entries(schema)) {
      if (spec.required && values[name] === undefined) problems.push(`- input: ${name} is required`);
    }
    for (const [name, value] of Object.entries(values)) {
      const spec = schema[name];
      const at = `- input.${name}:`;
      if (!spec) {
        problems.push(`- input: Additional property ${name} is not allowed`);
        continue;
      }
      const types: Record<FakeInput['type'], boolean> = {
        string: typeof value === 'string',
        uri: typeof value === 'string',
        integer: Number.isInteger(value),
        number: typeof value === 'number' && Number.isFinite(value),
        boolean: typeof value === 'boolean',
        array: Array.isArray(value),
      };
      if (!types[spec.type]) {
        problems.push(`${at} Invalid type. Expected: ${spec.type}, given: ${Array.isArray(value) ? 'array' : typeof value}`);
        continue;
      }
      if (spec.type === 'uri' && !isFileValue(value as string)) problems.push(`${at} Does not match format 'uri'`);
      if (spec.enum && !spec.enum.includes(value as string | number))
        problems.push(`${at} ${name} must be one of the following: ${spec.enum.map((v) => JSON.stringify(v)).join(', ')}`);
      if (spec.min !== undefined && (value as number) < spec.min) problems.push(`${at} Must be greater than or equal to ${spec.min}`);
      if (spec.max !== undefined && (value as number) > spec.max) problems.push(`${at} Must be less than or equal to ${spec.max}`);
      if (spec.maxLength !== undefined && (value as string).length > spec.maxLength)
        problems.push(`${at} String length must be less than or equal to ${spec.maxLength}`);
    }
    return problems;
  }

  /** A file input Replicate can read: a URL, a data URI, or one of the files uploaded here (still there). */
  function isFileValue(value: string): boolean {
    if (value.startsWith(`${baseUrl}/v1/files/`)) {
      const f = files.get(value.slice(`${baseUrl}/v1/files/`.length));
      return f !== undefined && !f.deleted;
    }
    return /^https?:\/\//.test(value) || /^data:[a-z]+\/[a-z0-9.+-]+;base64,/.test(value);
  }

  function create(res: ServerResponse, model: FakeModel, input: unknown): number {
    if (typeof input !== 'object' || input === null) {
      return problem(res, 422, 'Input validation failed', '- input: Invalid type. Expected: object, given: null');
    }
    const values = input as Record<string, unknown>;
    const missing = model.inputs.filter((name) => !isImageValue(values[name]));
    if (missing.length > 0) return problem(res, 422, 'Input validation failed', missing.map((name) => `- input: ${name} is required`).join('\n'));
    const invalid = model.schema ? schemaProblems(model.schema, values) : [];
    if (invalid.length > 0) return problem(res, 422, 'Input validation failed', invalid.join('\n'));
    if (model.trained) {
      const count = values.num_outputs ?? 1;
      if (typeof values.prompt !== 'string') return problem(res, 422, 'Input validation failed', '- input: prompt is required');
      if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > 4) {
        return problem(res, 422, 'Input validation failed', '- input.num_outputs: Must be less than or equal to 4');
      }
      if (values.aspect_ratio === 'custom' && (!Number.isInteger(values.width) || !Number.isInteger(values.height))) {
        return problem(res, 422, 'Input validation failed', '- input: width and height are required with aspect_ratio custom');
      }
    }
    const id = `fake${String(nextId++).padStart(6, '0')}`;
    const prediction: FakePrediction = {
      id,
      model,
      input: values,
      scenario: (options.scenario ?? (() => ({ outcome: 'success' }) as FakeScenario))(values),
      gets: 0,
      canceled: false,
      dataRemoved: false,
    };
    predictions.set(id, prediction);
    return json(res, 201, { ...view(prediction), status: 'starting', logs: '' });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: Buffer, body: Record<string, unknown> | null): Promise<number> {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const output = /^\/files\/([^/]+?)(?:-(\d))?\.(png|mp4|wav|mp3)$/.exec(path);
    if (req.method === 'GET' && output) {
      const p = predictions.get(output[1]);
      if (!p || p.dataRemoved) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
      const media = MEDIA[output[3]];
      res.writeHead(200, { 'content-type': media.contentType, 'content-length': media.data.length }).end(media.data);
      return 200;
    }
    if (req.headers.authorization !== `Bearer ${options.token}`) {
      return problem(res, 401, 'Unauthenticated', 'You did not pass a valid authentication token');
    }
    const modelCreate = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(path);
    const get = /^\/v1\/predictions\/([^/]+)$/.exec(path);
    const cancel = /^\/v1\/predictions\/([^/]+)\/cancel$/.exec(path);
    const trainingCreate = /^\/v1\/models\/([^/]+)\/([^/]+)\/versions\/([^/]+)\/trainings$/.exec(path);
    const trainingGet = /^\/v1\/trainings\/([^/]+)$/.exec(path);
    const trainingCancel = /^\/v1\/trainings\/([^/]+)\/cancel$/.exec(path);
    const file = /^\/v1\/files\/([^/]+)$/.exec(path);
    const route: Route | undefined =
      req.method === 'POST' && (path === '/v1/predictions' || modelCreate)
        ? 'create'
        : req.method === 'GET' && get
          ? 'get'
          : req.method === 'POST' && cancel
            ? 'cancel'
            : req.method === 'POST' && path === '/v1/files'
              ? 'upload'
              : req.method === 'POST' && trainingCreate
                ? 'train'
                : req.method === 'GET' && trainingGet
                  ? 'getTraining'
                  : req.method === 'POST' && trainingCancel
                    ? 'cancelTraining'
                    : (req.method === 'GET' || req.method === 'DELETE') && file
                      ? 'file'
                      : undefined;
    if (!route) return problem(res, 404, 'Not found', 'The requested resource could not be found.');

    if (throttles[route].times > 0) {
      throttles[route].times--;
      const retryAfter = throttles[route].retryAfter;
      return problem(
        res,
        429,
        'Request was throttled',
        'Request was throttled. Your rate limit resets in ~1s.',
        retryAfter === null ? {} : { 'retry-after': retryAfter },
      );
    }
    if (failures[route].times > 0) {
      failures[route].times--;
      return problem(res, failures[route].status, 'Internal Server Error', 'Something went wrong on our side.');
    }

    if (route === 'upload') return upload(res, req, raw);
    if (route === 'file') {
      const f = files.get(file?.[1] ?? '');
      if (!f || f.deleted) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
      if (req.method === 'DELETE') {
        f.deleted = true;
        res.writeHead(204).end();
        return 204;
      }
      return json(res, 200, fileView(f));
    }
    if (route === 'train') {
      const trainer = trainers.find((m) => m.owner === trainingCreate?.[1] && m.name === trainingCreate?.[2] && m.version === trainingCreate?.[3]);
      if (!trainer) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
      return train(res, trainer, body);
    }
    if (route === 'getTraining' || route === 'cancelTraining') {
      const t = trainings.get((trainingGet ?? trainingCancel)?.[1] ?? '');
      if (!t) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
      if (route === 'cancelTraining') {
        const current = trainingView(t);
        if (current.status === 'starting' || current.status === 'processing') t.canceled = true;
        return json(res, 200, trainingView(t));
      }
      const answer = trainingView(t);
      t.gets += 1;
      return json(res, 200, answer);
    }
    if (route === 'create') {
      if (modelCreate) {
        const model = models.find((m) => m.owner === modelCreate[1] && m.name === modelCreate[2]);
        if (!model) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
        return create(res, model, body?.input);
      }
      const model = models.find((m) => m.version === body?.version);
      if (!model) {
        return problem(res, 422, 'Invalid version or not permitted', "The specified version does not exist (or perhaps you don't have permission to use it?)");
      }
      return create(res, model, body?.input);
    }
    const prediction = predictions.get((get ?? cancel)?.[1] ?? '');
    if (!prediction) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
    if (route === 'cancel') {
      const current = view(prediction);
      if (current.status === 'starting' || current.status === 'processing') prediction.canceled = true;
      return json(res, 200, view(prediction));
    }
    const answer = view(prediction);
    prediction.gets += 1;
    return json(res, 200, answer);
  }

  const server = createServer((req, res) => {
    void (async () => {
      const raw = req.method === 'POST' ? await readBody(req) : Buffer.alloc(0);
      const multipart = /^multipart\//i.test(req.headers['content-type'] ?? '');
      const body = multipart ? { multipart: raw.length } : parseJson(raw);
      // recorded before the answer leaves, so a test that got the answer sees the request
      const record: RecordedRequest = {
        method: req.method ?? '',
        path: new URL(req.url ?? '/', 'http://fake').pathname,
        headers: req.headers,
        body,
        status: 0,
      };
      requests.push(record);
      record.status = await handle(req, res, raw, multipart ? null : body);
    })().catch((error: unknown) => problem(res, 500, 'Internal Server Error', String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    requests,
    predictions,
    files,
    trainings,
    throttle(route, times, retryAfter) {
      throttles[route] = { times, retryAfter };
    },
    failNext(route, times, status) {
      failures[route] = { times, status };
    },
    removeData(id) {
      const p = predictions.get(id);
      if (p) p.dataRemoved = true;
    },
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      })),
  };
}
