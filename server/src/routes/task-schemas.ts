/**
 * @module Schema pieces the task routes share (routes/tasks.ts, routes/ai-photos.ts): the
 * prompt, task ids, the per-task webhook, the `{ task_id }` answer and the error answers of a
 * submit.
 */
import { z } from '@hono/zod-openapi';
import { bodyErrorResponses, authedErrorResponses } from '../openapi/schemas.ts';
import { MAX_WEBHOOK_URL_LENGTH } from '../services/account/webhook-url.ts';

const MAX_PROMPT_LENGTH = 4000;

export const EXAMPLE_TASK_ID = '3b0c7c52-9a7e-4f55-a6a1-0c8f0f1d2e3a';
export const EXAMPLE_PARENT_ID = '8d2f1a64-5b3c-4e7d-9f10-2a3b4c5d6e7f';

/** 'Required' when the field is missing, else `Must be <what>`. */
export const required = (what: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? 'Required' : `Must be ${what}`) });

export const Prompt = z
  .string(required('a string'))
  .trim()
  .min(1, 'Prompt must not be empty')
  .max(MAX_PROMPT_LENGTH, `At most ${MAX_PROMPT_LENGTH} characters`)
  .openapi({ description: `What to picture (1–${MAX_PROMPT_LENGTH} characters, trimmed).`, example: 'a lighthouse on a cliff at sunset' });

export const TaskId = (description: string) =>
  z.guid({ error: (issue) => (issue.input === undefined ? 'Required' : 'Must be a task id') }).openapi({ description, example: EXAMPLE_PARENT_ID });

export const WebhookUrl = z
  .string()
  .nullish()
  .openapi({ description: `http:// or https:// URL (at most ${MAX_WEBHOOK_URL_LENGTH} characters) told about progress and the result of this task.` });

export const WebhookSecret = z
  .string()
  .max(256, 'At most 256 characters')
  .nullish()
  .openapi({ description: 'Sent back with every webhook call of this task, so your server knows it is us.' });

export const TaskIdResponse = z
  .object({ task_id: z.string().openapi({ description: 'Follow it with POST /fetch.' }) })
  .openapi('TaskIdResponse', { example: { task_id: EXAMPLE_TASK_ID } });

/** An error answer of the route, with its own example (the shared ErrorResponse schema). */
export const errorRef = (description: string, msg: string, code: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, example: { errors: [{ msg, code }] } } },
});

/** The error answers of every submit. */
export const submitErrors = {
  ...bodyErrorResponses,
  ...authedErrorResponses,
  402: errorRef('Your balance does not cover the price of the task; no task was created.', 'Not enough credits', 'insufficient_credits'),
};

/** The error answers of a submit made from an earlier task. */
export const parentErrors = {
  404: errorRef('No task of yours has that id.', 'Task not found', 'not_found'),
  409: errorRef('The task has not finished successfully, or has no images.', 'The task has not finished successfully', 'conflict'),
};
