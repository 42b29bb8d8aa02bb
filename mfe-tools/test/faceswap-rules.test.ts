import { describe, expect, it } from 'vitest';
import { FACESWAP_MAX_BYTES } from '@aim/shared-kit/domain';
import {
  canGenerate,
  checkImageFile,
  EMPTY_SLOT,
  type FaceswapTask,
  type ImageSlot,
  isFaceswapTask,
  resultFileName,
  resultView,
  shownPhase,
  taskInputs,
  tooLargeMessage,
} from '../src/features/faceswap/faceswap-rules.ts';
import type { LiveTaskState } from '../src/features/tasks/use-live-task.ts';

const task = (over: Partial<FaceswapTask> = {}): FaceswapTask => ({
  id: 't1',
  type: 'faceswap',
  status: 'finished',
  percentage: 100,
  image_url: 'http://media/t1.png',
  result: null,
  refund: 0,
  input_data: { swap_image_url: 'http://media/a.png', target_image_url: 'http://media/b.png' },
  ...over,
});
const ready = (t: FaceswapTask): LiveTaskState<FaceswapTask> => ({ status: 'ready', task: t, archived: false });
const slot = (over: Partial<ImageSlot> = {}): ImageSlot => ({ ...EMPTY_SLOT, ...over });
const uploaded = slot({ url: 'http://media/u.png', preview: 'blob:1' });

describe('isFaceswapTask', () => {
  it.each([
    ['faceswap', true],
    ['imagine', false],
    ['upscale#1', false],
    ['ai-photo-generate', false],
    ['', false],
    [null, false],
  ])('%s -> %s', (type, expected) => expect(isFaceswapTask(type)).toBe(expected));
});

describe('checkImageFile: jpeg, png, gif, webp up to 3 MB (spec §5)', () => {
  it.each([
    ['png under the limit', { type: 'image/png', size: 1000 }, 'source', null],
    ['exactly 3 MB', { type: 'image/jpeg', size: FACESWAP_MAX_BYTES }, 'target', null],
    ['gif', { type: 'image/gif', size: 10 }, 'source', null],
    ['webp', { type: 'image/webp', size: 10 }, 'target', null],
    ['one byte over, source', { type: 'image/png', size: FACESWAP_MAX_BYTES + 1 }, 'source', 'Source Image is too large. Please upload an image under 3MB.'],
    ['one byte over, target', { type: 'image/webp', size: FACESWAP_MAX_BYTES + 1 }, 'target', 'Target Image is too large. Please upload an image under 3MB.'],
    ['svg', { type: 'image/svg+xml', size: 10 }, 'source', 'Only jpeg, png, gif and webp images can be uploaded.'],
    ['no type', { type: '', size: 10 }, 'target', 'Only jpeg, png, gif and webp images can be uploaded.'],
  ] as const)('%s', (_name, file, role, expected) => expect(checkImageFile(file, role)).toBe(expected));

  it('names the box in the too-large message', () => {
    expect(tooLargeMessage('source')).toBe('Source Image is too large. Please upload an image under 3MB.');
    expect(tooLargeMessage('target')).toBe('Target Image is too large. Please upload an image under 3MB.');
  });
});

describe('canGenerate: both images uploaded and the key known (spec §5)', () => {
  it.each([
    ['both uploaded', uploaded, uploaded, true, true],
    ['no key yet', uploaded, uploaded, false, false],
    ['source missing', slot(), uploaded, true, false],
    ['target missing', uploaded, slot(), true, false],
    ['target uploading', uploaded, slot({ preview: 'blob:2', uploading: true }), true, false],
    ['target refused', uploaded, slot({ error: 'too large' }), true, false],
  ])('%s -> %s', (_name, source, target, key, expected) => expect(canGenerate({ source, target }, key)).toBe(expected));
});

describe('taskInputs: the pictures a restored task was made from', () => {
  it.each([
    [task(), { source: 'http://media/a.png', target: 'http://media/b.png' }],
    [task({ input_data: null }), { source: null, target: null }],
    [task({ input_data: { swap_image_url: '', target_image_url: 'http://media/b.png' } }), { source: null, target: 'http://media/b.png' }],
  ])('%#', (t, expected) => expect(taskInputs(t)).toEqual(expected));
});

describe('resultView: what the Result box shows (spec §2)', () => {
  it.each([
    ['nothing started', { uploading: false, taskId: null, state: { status: 'idle' } }, { kind: 'generate' }],
    ['uploading', { uploading: true, taskId: null, state: { status: 'idle' } }, { kind: 'spinner', reason: 'uploading' }],
    ['uploading wins over a task', { uploading: true, taskId: 't1', state: ready(task()) }, { kind: 'spinner', reason: 'uploading' }],
    ['task id before the read starts', { uploading: false, taskId: 't1', state: { status: 'idle' } }, { kind: 'spinner', reason: 'loading' }],
    ['task id without data', { uploading: false, taskId: 't1', state: { status: 'loading' } }, { kind: 'spinner', reason: 'loading' }],
    ['a new id while the old task is still on screen', { uploading: false, taskId: 't2', state: ready(task()) }, { kind: 'spinner', reason: 'loading' }],
    ['queued, no image', { uploading: false, taskId: 't1', state: ready(task({ status: 'queued', image_url: null })) }, { kind: 'spinner', reason: 'running' }],
    [
      'running, no image',
      { uploading: false, taskId: 't1', state: ready(task({ status: 'running', image_url: null })) },
      { kind: 'spinner', reason: 'running' },
    ],
    ['running with an image', { uploading: false, taskId: 't1', state: ready(task({ status: 'running' })) }, { kind: 'image', url: 'http://media/t1.png' }],
    ['finished', { uploading: false, taskId: 't1', state: ready(task()) }, { kind: 'image', url: 'http://media/t1.png' }],
    ['finished', { uploading: false, taskId: 't1', state: ready(task({ status: 'finished' })) }, { kind: 'image', url: 'http://media/t1.png' }],
    [
      'failed',
      { uploading: false, taskId: 't1', state: ready(task({ status: 'failed', image_url: null, result: { message: ' No face found. ' } })) },
      { kind: 'failed', message: 'No face found.' },
    ],
    ['finished without a picture', { uploading: false, taskId: 't1', state: ready(task({ image_url: null })) }, { kind: 'no-image' }],
    ['unreadable task', { uploading: false, taskId: 't1', state: { status: 'error' } }, { kind: 'error' }],
  ] as const)('%s', (_name, input, expected) => expect(resultView(input as Parameters<typeof resultView>[0])).toEqual(expected));
});

describe('shownPhase: whether the boxes wait', () => {
  it.each([
    [null, { status: 'idle' }, null],
    ['t1', { status: 'loading' }, 'loading'],
    ['t1', { status: 'error' }, null],
    ['t1', ready(task({ status: 'running' })), 'active'],
    ['t1', ready(task()), 'done'],
    ['t1', ready(task({ status: 'failed' })), 'failed'],
    ['t2', ready(task()), 'loading'],
  ] as const)('%s %j -> %s', (taskId, state, expected) => expect(shownPhase(taskId, state as LiveTaskState<FaceswapTask>)).toBe(expected));
});

describe('resultFileName', () => {
  it('is the task id with .png (spec §2)', () => expect(resultFileName('9b2f')).toBe('9b2f.png'));
});
