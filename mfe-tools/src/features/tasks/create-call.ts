// Issue 23: every POST that creates a task or starts a charge carries an Idempotency-Key. One key
// per user action (a click, a submit), made where the action starts; the same action's retry
// sends the same key, so the server answers with the first task instead of a second task and a
// second hold of credits. Two clicks are two actions, and two keys.
import { type ApiBody, type ApiData, ApiError, type ApiPath, type TypedApi } from '@aim/shared-kit/api';
import { showErrorToast, TOAST_MS } from '@aim/shared-kit/toast';

/** The Idempotency-Key of one user action. */
export type ActionKey = string;

export const newActionKey = (): ActionKey => crypto.randomUUID();

/** The POST paths that create a task (their answer carries its id), from the server's OpenAPI document. */
export type CreatePath = { [P in ApiPath<'post'>]: ApiData<'post', P> extends { task_id: string } ? P : never }[ApiPath<'post'>];

export type CreateCallOptions = {
  /** Errors are shown the API client's way (a toast of the server's text); false: the caller says them. */
  toastOnError?: boolean;
  /** How a toast is shown (the API client's own: the server's text for ~5 s). */
  notifyError?: (message: string) => void;
};

const toast = (message: string) => showErrorToast(message, TOAST_MS.short);

/**
 * POST `path` with the action's key → the new task's id. When no answer came back at all (a
 * network failure: the request may still have reached the server and made the task) it is sent
 * once more with the same key. The error is shown once, after the last try.
 */
export async function postCreate<P extends CreatePath>(
  api: TypedApi,
  path: P,
  body: ApiBody<'post', P>,
  key: ActionKey,
  options: CreateCallOptions = {},
): Promise<string> {
  const { toastOnError = true, notifyError = toast } = options;
  // the signature checks path and body per call site; inside, one shape serves every create path
  const post = api.post as unknown as (path: string, options: object) => Promise<{ task_id: string }>;
  const send = async () => (await post(path, { body, idempotencyKey: key, toastOnError: false })).task_id;
  try {
    try {
      return await send();
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 0) throw err;
      return await send();
    }
  } catch (err) {
    if (toastOnError && err instanceof ApiError) notifyError(err.message);
    throw err;
  }
}
