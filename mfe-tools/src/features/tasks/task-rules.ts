// Rules every task screen of this remote shares (spec §4, §5, §8): the phases of a task's status,
// progress that never goes backwards, and the image files an upload accepts. Free of React, so
// they are table-tested (test/task-rules.test.ts).
import { ApiError, DEFAULT_API_ERROR } from '@aim/shared-kit/api';
import { ACCEPTED_IMAGE_TYPES, isTerminalStatus } from '@aim/shared-kit/domain';

/** The fields of a task row (spec §3) that following it live needs. */
export type LiveTask = { id: string; type: string; status: string; percentage: number | null };

// Spec texts: these must match exactly.
export const TASK_FAILED = 'Task Failed';
export const ERROR_FETCHING_TASK = 'Error fetching task!';
export const UNSUPPORTED_IMAGE_MESSAGE = 'Only jpeg, png, gif and webp images can be uploaded.';

export type TaskPhase = 'active' | 'failed' | 'done';

/** Active statuses show a placeholder and progress; failed its message; success/finished results. */
export function taskPhase(status: string): TaskPhase {
  if (status === 'failed') return 'failed';
  return isTerminalStatus(status) ? 'done' : 'active';
}

export function clampPercentage(value: number | null | undefined): number {
  if (typeof value !== 'number' || Number.isNaN(value)) return 0;
  return Math.min(100, Math.max(0, Math.round(value)));
}

/**
 * Folds a live update into the task on screen. Realtime can deliver an older row after a newer
 * read (the re-read on subscribe races the first events), so within one run progress keeps its
 * high-water mark and a terminal row is never replaced by an active one.
 */
export function mergeTaskUpdate<T extends LiveTask>(current: T | null, next: T): T {
  if (!current || current.id !== next.id) return next;
  const currentPhase = taskPhase(current.status);
  const nextPhase = taskPhase(next.status);
  if (currentPhase !== 'active' && nextPhase === 'active') return current;
  if (currentPhase === 'active' && nextPhase === 'active') {
    return { ...next, percentage: Math.max(clampPercentage(current.percentage), clampPercentage(next.percentage)) };
  }
  return next;
}

/** 'running' → 'Running'; the text beside the progress bar. */
export function statusLabel(status: string): string {
  return status ? status.charAt(0).toUpperCase() + status.slice(1) : '';
}

export function failureMessage(task: { result: { message?: string | null } | null }): string {
  return task.result?.message?.trim() ?? '';
}

/** Spec §5: an image upload accepts jpeg, png, gif and webp. */
export function isAcceptedImage(file: { type: string }): boolean {
  return (ACCEPTED_IMAGE_TYPES as readonly string[]).includes(file.type);
}

/**
 * What a screen shows beside a failed call besides its toast (Faceswap: under the box after
 * 'Error uploading images!'): the server's own reason when it gave one (e.g. an unreadable
 * picture), else nothing.
 */
export function uploadFailureDetail(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.status === 0) return null;
  return error.message && error.message !== DEFAULT_API_ERROR ? error.message : null;
}
