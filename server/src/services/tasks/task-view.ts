/**
 * @module A task as the API shows it (POST /fetch, webhook payloads, task events).
 */
import type { TaskRow } from '../../repositories/task-repository.ts';
import { TERMINAL_STATUSES } from '../../repositories/task-repository.ts';

export interface TaskView {
  task_id: string;
  type: string;
  status: string;
  percentage: number;
  complete: boolean;
  prompt: string | null;
  parent_task_id: string | null;
  mode: string | null;
  image_url: string | null;
  image_urls: string[] | null;
  seed: string | null;
  cost: number;
  refund: number;
  result: Record<string, unknown> | null;
  input_data: Record<string, unknown> | null;
  archived: boolean;
  created_at: string;
  updated_at: string;
  /** AI photo uploads and trainings: after this they can no longer be trained or generated from. */
  expires_at: string | null;
}

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

export function isTerminal(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

export function toTaskView(row: TaskRow): TaskView {
  return {
    task_id: row.id,
    type: row.type,
    status: row.status,
    percentage: row.percentage,
    complete: row.complete,
    prompt: row.prompt,
    parent_task_id: row.parent_id,
    mode: row.mode,
    image_url: row.image_url,
    image_urls: row.image_urls,
    seed: row.seed,
    cost: row.cost,
    refund: row.refund,
    result: row.result,
    input_data: row.input_data,
    archived: row.archived,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    expires_at: row.expires_at ? iso(row.expires_at) : null,
  };
}
