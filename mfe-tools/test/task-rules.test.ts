import { describe, expect, it } from 'vitest';
import { ApiError, DEFAULT_API_ERROR } from '@aim/shared-kit/api';
import {
  clampPercentage,
  failureMessage,
  isAcceptedImage,
  type LiveTask,
  mergeTaskUpdate,
  statusLabel,
  taskPhase,
  uploadFailureDetail,
} from '../src/features/tasks/task-rules.ts';

const task = (over: Partial<LiveTask> = {}): LiveTask => ({ id: 't1', type: 'imagine', status: 'finished', percentage: 100, ...over });

describe('taskPhase (spec §4 statuses)', () => {
  it.each([
    ['staged', 'active'],
    ['pending', 'active'],
    ['processing', 'active'],
    ['queued', 'active'],
    ['submitted', 'active'],
    ['starting', 'active'],
    ['running', 'active'],
    ['success', 'done'], // rows written before the API said finished
    ['finished', 'done'],
    ['failed', 'failed'],
  ])('%s -> %s', (status, expected) => expect(taskPhase(status)).toBe(expected));
});

describe('clampPercentage', () => {
  it.each([
    [null, 0],
    [undefined, 0],
    [Number.NaN, 0],
    [-5, 0],
    [42.4, 42],
    [100, 100],
    [140, 100],
  ])('%s -> %s', (value, expected) => expect(clampPercentage(value)).toBe(expected));
});

describe('mergeTaskUpdate: progress never goes backwards, a terminal row is never undone', () => {
  it.each([
    ['first row', null, task({ status: 'running', percentage: 10 }), 'running', 10],
    ['progress forward', task({ status: 'running', percentage: 10 }), task({ status: 'running', percentage: 40 }), 'running', 40],
    ['stale lower progress', task({ status: 'running', percentage: 60 }), task({ status: 'processing', percentage: 30 }), 'processing', 60],
    ['active to finished', task({ status: 'running', percentage: 60 }), task({ status: 'finished', percentage: 100 }), 'finished', 100],
    ['active to failed', task({ status: 'running', percentage: 60 }), task({ status: 'failed', percentage: 60 }), 'failed', 60],
    ['stale active after finished', task({ status: 'finished', percentage: 100 }), task({ status: 'running', percentage: 80 }), 'finished', 100],
    ['another task replaces', task({ id: 'a', status: 'finished' }), task({ id: 'b', status: 'queued', percentage: 0 }), 'queued', 0],
  ])('%s', (_name, current, next, status, percentage) => {
    const merged = mergeTaskUpdate(current, next);
    expect(merged.status).toBe(status);
    expect(merged.percentage).toBe(percentage);
  });
});

describe('statusLabel', () => {
  it.each([
    ['running', 'Running'],
    ['queued', 'Queued'],
    ['', ''],
  ])('%s -> %s', (status, expected) => expect(statusLabel(status)).toBe(expected));
});

describe('failureMessage', () => {
  it.each([
    [null, ''],
    [{}, ''],
    [{ message: null }, ''],
    [{ message: '  Banned prompt: gore  ' }, 'Banned prompt: gore'],
  ])('%j -> %s', (result, expected) => expect(failureMessage({ result })).toBe(expected));
});

describe('isAcceptedImage (jpeg, png, gif, webp only)', () => {
  it.each([
    ['image/jpeg', true],
    ['image/png', true],
    ['image/gif', true],
    ['image/webp', true],
    ['image/svg+xml', false],
    ['image/bmp', false],
    ['application/pdf', false],
    ['', false],
  ])('%s -> %s', (type, expected) => expect(isAcceptedImage({ type })).toBe(expected));
});

describe('uploadFailureDetail: the server reason shown beside a failed call', () => {
  it.each([
    ['server message', new ApiError('The picture could not be read.', 400), 'The picture could not be read.'],
    ['default text', new ApiError(DEFAULT_API_ERROR, 500), null],
    ['network failure (status 0)', new ApiError(DEFAULT_API_ERROR, 0), null],
    ['not an API error', new TypeError('Failed to fetch'), null],
    ['nothing', undefined, null],
  ])('%s', (_name, error, expected) => expect(uploadFailureDetail(error)).toBe(expected));
});
