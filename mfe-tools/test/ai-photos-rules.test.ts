import { describe, expect, it } from 'vitest';
import {
  type AiPhotoListItem,
  type AiPhotoTask,
  ASPECT_RATIOS,
  base64Length,
  ERROR_FETCHING_AI_PHOTO_TASKS,
  ERROR_GENERATING,
  ERROR_PREPARING_TRAINING_DATA,
  ERROR_TRAINING,
  ERROR_UPLOADING_IMAGES,
  ETHNICITIES,
  filterTasks,
  formatBytes,
  GENDERS,
  isAiPhotoTask,
  isLowResolution,
  listAction,
  listDetail,
  lowResolutionWarning,
  MAX_PHOTOS_MESSAGE,
  namePhotosIn,
  NOT_AI_PHOTO_TASK,
  parseAge,
  photoCheck,
  photoFileName,
  photoSize,
  photoSlots,
  planAdditions,
  randomSeed,
  resultNote,
  scaledSize,
  stepState,
  trainingIdOf,
  uploadIdOf,
  validatePrepare,
  withLiveTask,
  wizardView,
} from '../src/features/ai-photos/ai-photos-rules.ts';
import type { LiveTaskState } from '../src/features/tasks/use-live-task.ts';
import { listItemOf, makeAiPhotoTask } from './support/fake-ai-photos-gateway.ts';

describe('the spec texts (§5, §8)', () => {
  it.each([
    [NOT_AI_PHOTO_TASK, 'This task is not an AI Photo task!'],
    [ERROR_FETCHING_AI_PHOTO_TASKS, 'Error fetching AI Photo tasks!'],
    [ERROR_PREPARING_TRAINING_DATA, 'Error uploading and preparing training data!'],
    [ERROR_TRAINING, 'Error training the model!'],
    [ERROR_GENERATING, 'Error generating AI Photos!'],
    [ERROR_UPLOADING_IMAGES, 'Error uploading images!'],
    [MAX_PHOTOS_MESSAGE, 'You already selected the maximum of 30 images'],
    [lowResolutionWarning('me at the beach.jpg'), 'me at the beach.jpg: low resolution (<512×512)'],
  ])('%s', (actual, expected) => expect(actual).toBe(expected));

  it('offers exactly the spec genders and ethnicities, sent as the spec writes them', () => {
    expect(GENDERS.map((g) => g.value)).toEqual(['male', 'female']);
    expect(ETHNICITIES.map((e) => e.value)).toEqual([
      'asian',
      'black',
      'latino',
      'middle eastern',
      'native american',
      'pacific islander',
      'white',
      'mixed',
      'other',
    ]);
  });
});

describe('isAiPhotoTask', () => {
  it.each([
    ['ai-photo-upload', true],
    ['ai-photo-train', true],
    ['ai-photo-generate', true],
    ['faceswap', false],
    ['imagine', false],
    ['', false],
    [null, false],
  ])('%s → %s', (type, expected) => expect(isAiPhotoTask(type)).toBe(expected));
});

describe('isLowResolution: under 512×512, i.e. fewer than 262144 pixels (spec §5, §9)', () => {
  it.each([
    [512, 512, false],
    [511, 513, true],
    [513, 511, true],
    [511, 512, true],
    [512, 511, true],
    [1024, 256, false],
    [1024, 255, true],
    [4000, 3000, false],
    [64, 64, true],
  ])('%i×%i → %s', (width, height, expected) => expect(isLowResolution({ width, height })).toBe(expected));
});

describe('planAdditions: accepted types, no file twice, at most 30', () => {
  let stamp = 0;
  const file = (name: string, type = 'image/jpeg', size = 1000) => ({ name, type, size, lastModified: ++stamp });
  const files = (n: number) => Array.from({ length: n }, (_, i) => file(`p${i}.jpg`));

  it('takes jpeg, png and webp; refuses other types by name', () => {
    const plan = planAdditions(
      [],
      [file('a.jpg'), file('b.png', 'image/png'), file('c.webp', 'image/webp'), file('d.gif', 'image/gif'), file('e.heic', 'image/heic')],
    );
    expect(plan.accepted.map((f) => f.name)).toEqual(['a.jpg', 'b.png', 'c.webp']);
    expect(plan.refused).toEqual(['d.gif: only jpeg, png and webp photos can be used', 'e.heic: only jpeg, png and webp photos can be used']);
    expect(plan.isFull).toBe(false);
  });

  it.each([
    [0, 30, 30, false],
    [0, 31, 30, true],
    [29, 1, 1, false],
    [29, 3, 1, true],
    [30, 1, 0, true],
    [10, 5, 5, false],
  ])('%i selected + %i chosen → %i added, maximum message %s', (selected, chosen, added, isFull) => {
    const plan = planAdditions(files(selected), files(chosen));
    expect(plan.accepted).toHaveLength(added);
    expect(plan.isFull).toBe(isFull);
  });

  it('skips a file already selected or chosen twice', () => {
    const a = file('a.jpg');
    const plan = planAdditions([a], [{ ...a }, file('b.jpg'), file('b.jpg')]);
    expect(plan.accepted.map((f) => f.name)).toEqual(['b.jpg', 'b.jpg']);
    const b = file('c.jpg');
    expect(planAdditions([], [b, { ...b }]).accepted).toHaveLength(1);
  });
});

describe('validatePrepare (spec §5: 10–30 images, gender and ethnicity required, age numeric)', () => {
  const ok = { photoCount: 10, gender: 'female', ethnicity: 'middle eastern', age: '34' };
  it.each([
    ['everything given', ok, {}],
    ['30 photos', { ...ok, photoCount: 30 }, {}],
    ['9 photos', { ...ok, photoCount: 9 }, { photos: 'Select 10–30 photos (9 selected).' }],
    ['31 photos', { ...ok, photoCount: 31 }, { photos: 'Select 10–30 photos (31 selected).' }],
    ['no gender', { ...ok, gender: '' }, { gender: 'Select a gender.' }],
    ['a gender the spec does not list', { ...ok, gender: 'other' }, { gender: 'Select a gender.' }],
    ['no ethnicity', { ...ok, ethnicity: '' }, { ethnicity: 'Select an ethnicity.' }],
    ['an unknown ethnicity', { ...ok, ethnicity: 'martian' }, { ethnicity: 'Select an ethnicity.' }],
    ['no age', { ...ok, age: '' }, { age: 'Enter an age as a whole number (1–120).' }],
    ['a word for age', { ...ok, age: 'thirty' }, { age: 'Enter an age as a whole number (1–120).' }],
    [
      'nothing at all',
      { photoCount: 0, gender: '', ethnicity: '', age: '' },
      {
        photos: 'Select 10–30 photos (0 selected).',
        gender: 'Select a gender.',
        ethnicity: 'Select an ethnicity.',
        age: 'Enter an age as a whole number (1–120).',
      },
    ],
  ])('%s', (_name, input, expected) => expect(validatePrepare(input)).toEqual(expected));

  it.each([
    ['34', 34],
    [' 7 ', 7],
    ['1', 1],
    ['120', 120],
    ['0', null],
    ['121', null],
    ['3.5', null],
    ['-4', null],
    ['1e2', null],
    ['', null],
  ])('parseAge(%j) → %s', (value, expected) => expect(parseAge(value)).toBe(expected));
});

describe('sending the photos', () => {
  it.each([
    [{ width: 1024, height: 768 }, 400_000, null],
    [{ width: 2048, height: 1536 }, 3 * 1024 * 1024, null],
    [{ width: 4032, height: 3024 }, 5_000_000, { width: 2048, height: 1536 }],
    [{ width: 3024, height: 4032 }, 2_000_000, { width: 1536, height: 2048 }],
    // Small in pixels but heavy (a PNG): re-encoded at its size.
    [{ width: 1500, height: 1500 }, 8_000_000, { width: 1500, height: 1500 }],
  ])('scaledSize(%j, %i bytes) → %j', (size, bytes, expected) => expect(scaledSize(size, bytes)).toEqual(expected));

  it.each([
    ['images[3]: not a JPEG, PNG or WebP image', 'd.jpg: not a JPEG, PNG or WebP image'],
    ['images[1]: the same photo as images[0]', 'b.jpg: the same photo as a.jpg'],
    ['images[9]: larger than 40 megapixels', 'images[9]: larger than 40 megapixels'],
    ['Not enough credits', 'Not enough credits'],
  ])('namePhotosIn(%j) → %j', (message, expected) => expect(namePhotosIn(message, ['a.jpg', 'b.jpg', 'c.jpg', 'd.jpg'])).toBe(expected));

  it.each([
    [0, 0],
    [1, 4],
    [3, 4],
    [4, 8],
    [3_000_000, 4_000_000],
  ])('base64Length(%i) → %i', (bytes, expected) => expect(base64Length(bytes)).toBe(expected));

  it.each([
    [500, '1 KB'],
    [200 * 1024, '200 KB'],
    [12.34 * 1024 * 1024, '12.3 MB'],
  ])('formatBytes(%i) → %s', (bytes, expected) => expect(formatBytes(bytes)).toBe(expected));
});

describe('photoCheck: the per-photo verdicts of the upload check', () => {
  const stored = ['u/1.jpg', 'u/2.jpg', 'u/3.jpg', 'u/4.jpg'];
  const upload = (result: AiPhotoTask['result'], images: string[] | null = stored) => makeAiPhotoTask({ result, input_data: { images } });

  it('reads photos: [{index, ok, reason}], naming refused photos by their files', () => {
    const check = photoCheck(
      upload({
        photos: [
          { index: 0, ok: true },
          { index: 1, ok: false, reason: 'no face found' },
          { index: 2, ok: true },
          { index: 3, ok: false, reason: 'several people' },
        ],
      }),
      ['me.jpg', 'cat.jpg', 'me2.jpg', 'party.jpg'],
    );
    expect(check).toEqual({
      total: 4,
      refused: [
        { index: 1, name: 'cat.jpg', reason: 'no face found', url: 'u/2.jpg' },
        { index: 3, name: 'party.jpg', reason: 'several people', url: 'u/4.jpg' },
      ],
    });
  });

  it.each([
    ['accepted flag', { accepted: false, reason: 'x' }],
    ['usable flag', { usable: false, reason: 'x' }],
    ['status', { status: 'rejected', reason: 'x' }],
    ['a reason alone', { reason: 'x' }],
  ])('a refusal given as %s', (_name, verdict) => {
    expect(photoCheck(upload({ photos: [{ ok: true }, verdict] }))?.refused.map((r) => [r.index, r.name])).toEqual([[1, 'Photo 2']]);
  });

  it('reads rejected: [{index, reason}] against the stored photos', () => {
    expect(photoCheck(upload({ rejected: [{ index: 2, reason: 'different identity (median cos 0.61)' }] }))).toEqual({
      total: 4,
      refused: [{ index: 2, name: 'Photo 3', reason: 'different identity (median cos 0.61)', url: 'u/3.jpg' }],
    });
    expect(photoCheck(upload({ rejected: [{ index: 0, reason: 'blurry' }] }, null))?.total).toBeNull();
  });

  it('is null without verdicts (nothing checked up front) and says "cannot be used" without a reason', () => {
    expect(photoCheck(upload(null))).toBeNull();
    expect(photoCheck(upload({ engine: 'replicate' }))).toBeNull();
    expect(photoCheck(upload({ photos: [{ ok: false }] }))?.refused[0]?.reason).toBeNull();
  });
});

describe('the tasks a task came from', () => {
  it.each([
    [{ input_data: { training_images_id: 'up-1' }, parent_id: 'up-2' }, 'up-1'],
    [{ input_data: null, parent_id: 'up-2' }, 'up-2'],
    [{ input_data: {}, parent_id: null }, null],
  ])('uploadIdOf(%j) → %s', (task, expected) => expect(uploadIdOf(task)).toBe(expected));
  it.each([
    [{ input_data: { training_id: 'tr-1' }, parent_id: 'tr-2' }, 'tr-1'],
    [{ input_data: null, parent_id: 'tr-2' }, 'tr-2'],
    [{ input_data: null }, null],
  ])('trainingIdOf(%j) → %s', (task, expected) => expect(trainingIdOf(task)).toBe(expected));
});

describe('Generate', () => {
  it.each([
    ['1:1', 1024, 1024],
    ['3:4', 768, 1024],
    ['2:3', 680, 1024],
    ['9:16', 576, 1024],
    ['4:3', 1024, 768],
    ['3:2', 1024, 680],
    ['16:9', 1024, 576],
  ] as const)('photoSize(%s) → %i×%i, within 2%% of the ratio (the server checks)', (ratio, width, height) => {
    expect(photoSize(ratio)).toEqual({ width, height });
    const [w, h] = ratio.split(':').map(Number) as [number, number];
    expect(Math.abs(width / height / (w / h) - 1)).toBeLessThan(0.02);
  });

  it('offers every ratio the API takes', () => {
    expect([...ASPECT_RATIOS].sort()).toEqual(['16:9', '1:1', '2:3', '3:2', '3:4', '4:3', '9:16']);
  });

  it('draws a whole seed below 2^31', () => {
    expect(randomSeed(() => 0)).toBe(0);
    expect(randomSeed(() => 0.5)).toBe(2 ** 30);
    expect(randomSeed(() => 0.9999999999)).toBeLessThan(2 ** 31);
  });

  it.each([
    ['running, nothing yet', { status: 'running', image_urls: null, image_url: null }, [null, null, null, null]],
    ['running, two arrived', { status: 'running', image_urls: ['a', 'b'], image_url: 'a' }, ['a', 'b', null, null]],
    ['finished with four', { status: 'finished', image_urls: ['a', 'b', 'c', 'd'], image_url: 'a' }, ['a', 'b', 'c', 'd']],
    ['finished with three', { status: 'finished', image_urls: ['a', 'b', 'c'], image_url: 'a' }, ['a', 'b', 'c']],
    ['only image_url', { status: 'finished', image_urls: null, image_url: 'a' }, ['a']],
    ['finished with none', { status: 'finished', image_urls: [], image_url: null }, []],
  ])('photoSlots: %s', (_name, task, expected) => expect(photoSlots(task)).toEqual(expected));

  it.each([
    [
      { note: '  Template-based: your face on portrait templates, not a generative model.  ' },
      'Template-based: your face on portrait templates, not a generative model.',
    ],
    [{ note: '' }, null],
    [{ note: 42 }, null],
    [null, null],
  ])('resultNote(%j) → %j', (result, expected) => expect(resultNote({ result: result as AiPhotoTask['result'] })).toBe(expected));

  it.each([
    ['image/jpeg', 'http://m/x.png', 'g1-1.jpg'],
    ['image/png', 'http://m/x.jpg', 'g1-1.png'],
    ['image/webp', 'http://m/x', 'g1-1.webp'],
    ['', 'http://m/x.JPEG?v=1', 'g1-1.jpg'],
    ['application/octet-stream', 'http://m/x', 'g1-1.png'],
  ])('photoFileName(%s, %s) → %s', (type, url, expected) => expect(photoFileName('g1', 0, type, url)).toBe(expected));
});

describe('wizardView: the step for the task in ?taskId= (spec §4)', () => {
  const ready = (task: AiPhotoTask): LiveTaskState<AiPhotoTask> => ({ status: 'ready', task, archived: false });
  const upload = (status: string) => makeAiPhotoTask({ id: 'u', type: 'ai-photo-upload', status });
  const train = (status: string) => makeAiPhotoTask({ id: 'u', type: 'ai-photo-train', status, input_data: { training_images_id: 'up' } });
  const gen = (status: string) => makeAiPhotoTask({ id: 'u', type: 'ai-photo-generate', status, input_data: { training_id: 'tr' } });

  it.each([
    ['no task: Prepare', null, { status: 'idle' } as const, 'prepare', 0],
    ['the task being read', 'u', { status: 'loading' } as const, 'loading', null],
    ['before the read starts', 'u', { status: 'idle' } as const, 'loading', null],
    ['another task still on screen', 'other', ready(upload('finished')), 'loading', null],
    ['an unreadable task', 'u', { status: 'error' } as const, 'error', null],
    ['an upload being checked: step 1', 'u', ready(upload('processing')), 'running', 0],
    ['a failed upload: step 1', 'u', ready(upload('failed')), 'failed', 0],
    ['a finished upload: the trigger word, step 2', 'u', ready(upload('finished')), 'train', 1],
    ['a training running: step 2', 'u', ready(train('running')), 'running', 1],
    ['a failed training: step 2', 'u', ready(train('failed')), 'failed', 1],
    ['a finished training: Generate, step 3', 'u', ready(train('finished')), 'generate', 2],
    ['photos being made: step 3', 'u', ready(gen('running')), 'running', 2],
    ['finished photos: step 3', 'u', ready(gen('finished')), 'photos', 2],
    ['failed photos: step 3', 'u', ready(gen('failed')), 'failed', 2],
  ])('%s', (_name, taskId, state, kind, step) => {
    const view = wizardView(taskId, state);
    expect(view.kind).toBe(kind);
    expect(view.step).toBe(step);
  });

  it('carries what the next call needs: the upload to train, the training to generate from', () => {
    const trained = wizardView('u', ready(train('finished')));
    expect(trained.kind === 'generate' && trained.trainingId).toBe('u');
    const photos = wizardView('u', ready(gen('finished')));
    expect(photos.kind === 'photos' && photos.trainingId).toBe('tr');
    const failed = wizardView('u', ready(makeAiPhotoTask({ id: 'u', status: 'failed', result: { message: ' No face was found. ' } })));
    expect(failed.kind === 'failed' && failed.message).toBe('No face was found.');
  });

  it.each([
    ['prepare', null, { status: 'idle' } as const, ['current', 'upcoming', 'upcoming']],
    ['train', 'u', ready(upload('finished')), ['done', 'current', 'upcoming']],
    ['generate', 'u', ready(train('finished')), ['done', 'done', 'current']],
    ['photos', 'u', ready(gen('finished')), ['done', 'done', 'done']],
    ['training running', 'u', ready(train('running')), ['done', 'current', 'upcoming']],
    ['a task loading', 'u', { status: 'loading' } as const, ['upcoming', 'upcoming', 'upcoming']],
    ['an unreadable task', 'u', { status: 'error' } as const, ['upcoming', 'upcoming', 'upcoming']],
  ])('stepState in %s', (_name, taskId, state, expected) => {
    const view = wizardView(taskId, state);
    expect([0, 1, 2].map((i) => stepState(i as 0 | 1 | 2, view))).toEqual(expected);
  });
});

describe('the side list', () => {
  const item = (type: string, status: string, over: Partial<AiPhotoListItem> = {}): AiPhotoListItem => ({
    ...listItemOf(makeAiPhotoTask({ id: `${type}-${status}`, type, status })),
    ...over,
  });
  const items = [
    item('ai-photo-generate', 'finished'),
    item('ai-photo-train', 'finished'),
    item('ai-photo-upload', 'finished'),
    item('ai-photo-upload', 'failed'),
  ];

  it.each([
    ['All Tasks', ['ai-photo-generate-finished', 'ai-photo-train-finished', 'ai-photo-upload-finished', 'ai-photo-upload-failed']],
    ['Model Training', ['ai-photo-train-finished']],
    ['Image Upload', ['ai-photo-upload-finished', 'ai-photo-upload-failed']],
  ] as const)('%s', (filter, ids) => expect(filterTasks(items, filter).map((t) => t.id)).toEqual(ids));

  it.each([
    ['ai-photo-upload', 'success', 'Train now'], // a row written before the API said finished
    ['ai-photo-upload', 'finished', 'Train now'],
    ['ai-photo-upload', 'processing', 'Open'],
    ['ai-photo-upload', 'failed', 'Open'],
    ['ai-photo-train', 'finished', 'Generate'],
    ['ai-photo-train', 'running', 'Open'],
    ['ai-photo-train', 'failed', 'Open'],
    ['ai-photo-generate', 'finished', 'Open'],
  ])('%s %s → %s', (type, status, action) => expect(listAction({ type, status })).toBe(action));

  it.each([
    [item('ai-photo-upload', 'finished', { gender: 'female', ethnicity: 'latino', age: '29' }), 'female, latino, age 29'],
    [item('ai-photo-train', 'finished', { trigger_word: 'ohwxanna' }), 'Trigger word: ohwxanna'],
    [item('ai-photo-train', 'finished'), ''],
    [item('ai-photo-generate', 'finished', { prompt: 'a vintage studio photo' }), 'a vintage studio photo'],
  ])('listDetail %#', (row, expected) => expect(listDetail(row)).toBe(expected));

  it('shows the followed task’s newer status in its row', () => {
    const live = { id: 'ai-photo-train-finished', type: 'ai-photo-train', status: 'running', percentage: 40 };
    expect(withLiveTask(items, live)[1]).toMatchObject({ status: 'running', percentage: 40 });
    expect(withLiveTask(items, null)).toEqual(items);
  });
});
