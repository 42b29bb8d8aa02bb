/**
 * A minimal APIFRAME v1 client, written the way v1 clients (the official SDKs, Postman
 * collections, customers' own code) talk to the API: plain `fetch` over HTTP, the key alone in
 * `Authorization` (no "Bearer"), JSON bodies, errors read from the top-level `message`, and a
 * wait loop that polls POST /fetch until the status is `finished` (or `failed`). It knows
 * nothing of this server's code, so a contract test built on it fails when the API stops
 * looking like v1. Extend it per path (a new family's submit is just `submit(path, body)`).
 */

/** The statuses a v1 client knows. */
export const V1_CLIENT_STATUSES = ['pending', 'staged', 'starting', 'processing', 'finished', 'failed', 'retry'] as const;

/** A task as a v1 client reads it: the common fields; the family's fields are extra keys. */
export interface V1Task {
  task_id: string;
  task_type: string;
  status: string;
  percentage: string;
  message?: string;
  actions?: string[];
  [field: string]: unknown;
}

interface V1Account {
  email: string;
  credits: number;
  total_images: number;
  plan: string;
}

/** A non-2xx answer: `message` is the body's top-level message, as v1 clients show it. */
export class V1ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const message = (body as { message?: unknown } | null)?.message;
    super(typeof message === 'string' ? message : `HTTP ${status}`);
    this.name = 'V1ApiError';
  }
}

/** A task that ended `failed` while a client waited for it to finish. */
export class V1TaskFailedError extends Error {
  constructor(readonly task: V1Task) {
    super(`task ${task.task_id} failed: ${task.message ?? '(no message)'}`);
    this.name = 'V1TaskFailedError';
  }
}

interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Every view polled, in order (to assert on progress). */
  onPoll?: (task: V1Task) => void;
}

export interface V1Client {
  request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T>;
  /** POST /upload: an image as the multipart field `image`; answers its imageURL. */
  upload(file: Blob, filename?: string): Promise<string>;
  /** POST /upload-audio: an audio file as the multipart field `audio`; answers its audioURL. */
  uploadAudio(file: Blob, filename?: string): Promise<string>;
  /** Any submit: answers its `task_id`. */
  submit(path: string, body: Record<string, unknown>): Promise<string>;
  fetch(taskId: string): Promise<V1Task>;
  fetchMany(taskIds: string[]): Promise<{ tasks: V1Task[] }>;
  account(): Promise<V1Account>;
  /** Polls POST /fetch until `finished`; a `failed` task throws V1TaskFailedError. */
  waitForFinished(taskId: string, options?: WaitOptions): Promise<V1Task>;
}

export function createV1Client(opts: { baseUrl: string; apiKey: string; fetch?: typeof fetch }): V1Client {
  const doFetch = opts.fetch ?? fetch;
  const base = opts.baseUrl.replace(/\/+$/, '');

  /** JSON in (a FormData as multipart), JSON out; a non-2xx answer throws V1ApiError. */
  async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { Authorization: opts.apiKey };
    let payload: string | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await doFetch(`${base}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    if (!res.ok) throw new V1ApiError(res.status, parsed);
    return parsed as T;
  }

  /** A file as the one multipart field `field`; answers the URL under `key` of the JSON answer. */
  async function uploadFile(path: string, field: string, key: string, file: Blob, filename: string): Promise<string> {
    const form = new FormData();
    form.set(field, file, filename);
    const answer = await request<Record<string, unknown> | null>('POST', path, form);
    const url = answer?.[key];
    if (typeof url !== 'string') throw new Error(`POST ${path} answered no ${key}: ${JSON.stringify(answer)}`);
    return url;
  }

  const client: V1Client = {
    request,
    upload: (file, filename = 'image') => uploadFile('/upload', 'image', 'imageURL', file, filename),
    uploadAudio: (file, filename = 'audio') => uploadFile('/upload-audio', 'audio', 'audioURL', file, filename),
    async submit(path, body) {
      const answer = await request<{ task_id?: unknown }>('POST', path, body);
      if (typeof answer?.task_id !== 'string') throw new Error(`POST ${path} answered no task_id: ${JSON.stringify(answer)}`);
      return answer.task_id;
    },
    fetch: (taskId) => request<V1Task>('POST', '/fetch', { task_id: taskId }),
    fetchMany: (taskIds) => request<{ tasks: V1Task[] }>('POST', '/fetch-many', { task_ids: taskIds }),
    account: () => request<V1Account>('GET', '/account'),
    async waitForFinished(taskId, options = {}) {
      const deadline = Date.now() + (options.timeoutMs ?? 30_000);
      for (;;) {
        const task = await client.fetch(taskId);
        options.onPoll?.(task);
        if (task.status === 'finished') return task;
        if (task.status === 'failed') throw new V1TaskFailedError(task);
        if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status} (${task.percentage}%) after ${options.timeoutMs ?? 30_000} ms`);
        await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
      }
    },
  };
  return client;
}
