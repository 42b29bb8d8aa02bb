import { useMemo } from 'react';
import { getRuntimeConfig } from './runtime-config.ts';
import { useUserRow } from './session.tsx';
import { getSupabaseClient } from './supabase.ts';
import { showErrorToast, TOAST_MS } from './toast.tsx';

/** Spec §8: shown when the server gives no message of its own. */
export const DEFAULT_API_ERROR = 'An unexpected error occured, Please refresh and try again!';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The server's error contract is {errors:[{msg}]}; anything else gets the default text. */
export function readApiErrorMessage(body: unknown): string {
  const first = (body as { errors?: Array<{ msg?: unknown }> } | null)?.errors?.[0];
  return typeof first?.msg === 'string' && first.msg.trim() ? first.msg : DEFAULT_API_ERROR;
}

export type RequestOptions = {
  body?: unknown;
  /** Callers that show the error their own way (alert, inline text) turn the toast off. */
  toastOnError?: boolean;
  signal?: AbortSignal;
  /**
   * Sent as Idempotency-Key on calls that create a task or start a charge: one random value
   * per user action (`crypto.randomUUID()`), reused when that action is retried, so a double
   * submit or a retry after a lost answer gets the first answer back instead of a second task
   * or charge (server/src/middleware/idempotency).
   */
  idempotencyKey?: string;
};

export type ApiClient = {
  baseUrl: string;
  request<T>(method: string, path: string, options?: RequestOptions): Promise<T>;
  get<T>(path: string, options?: RequestOptions): Promise<T>;
  post<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  /** For binary answers (invoice PDF). */
  blob(method: string, path: string, options?: RequestOptions): Promise<Blob>;
};

export type ApiClientOptions = {
  baseUrl: string;
  getApiKey: () => string | null | undefined;
  /**
   * The signed-in session's access token, sent as X-Session-Token: the calls that move money or
   * change credentials need it beside the API key (server docs/decisions/0011-two-credentials.md).
   */
  getSessionToken?: () => Promise<string | null | undefined>;
  onError?: (message: string) => void;
  fetchImpl?: typeof fetch;
};

export function createApiClient({ baseUrl, getApiKey, getSessionToken, onError, fetchImpl = fetch }: ApiClientOptions): ApiClient {
  async function send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    const apiKey = getApiKey();
    if (apiKey) headers.Authorization = apiKey;
    const sessionToken = await getSessionToken?.().catch(() => null);
    if (sessionToken) headers['X-Session-Token'] = sessionToken;
    if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
    const isForm = typeof FormData !== 'undefined' && options.body instanceof FormData;
    if (options.body !== undefined && !isForm) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await fetchImpl(baseUrl + path, {
        method,
        headers,
        credentials: 'include',
        signal: options.signal,
        body: options.body === undefined ? undefined : isForm ? (options.body as FormData) : JSON.stringify(options.body),
      });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      return fail(new ApiError(DEFAULT_API_ERROR, 0), options);
    }
    if (!res.ok) {
      const body = await res.json().catch(() => null);
      return fail(new ApiError(readApiErrorMessage(body), res.status), options);
    }
    return res;
  }

  function fail(error: ApiError, options: RequestOptions): never {
    if (options.toastOnError !== false) onError?.(error.message);
    throw error;
  }

  const client: ApiClient = {
    baseUrl,
    async request<T>(method: string, path: string, options?: RequestOptions) {
      const res = await send(method, path, options);
      const text = await res.text();
      return (text ? JSON.parse(text) : undefined) as T;
    },
    get: (path, options) => client.request('GET', path, options),
    post: (path, body, options) => client.request('POST', path, { ...options, body }),
    async blob(method, path, options) {
      return (await send(method, path, options)).blob();
    },
  };
  return client;
}

/** The session's current access token (supabase-js refreshes it first when it has expired). */
async function currentAccessToken(): Promise<string | null> {
  const { data } = await getSupabaseClient().auth.getSession();
  return data.session?.access_token ?? null;
}

/**
 * The API client for the signed-in user: their api_key in Authorization (spec §7), the session's
 * access token in X-Session-Token, errors as a ~5 s toast.
 */
export function useApiClient(): ApiClient {
  const { row } = useUserRow();
  const apiKey = row?.api_key ?? null;
  return useMemo(
    () =>
      createApiClient({
        baseUrl: getRuntimeConfig().apiBaseUrl,
        getApiKey: () => apiKey,
        getSessionToken: currentAccessToken,
        onError: (message) => showErrorToast(message, TOAST_MS.short),
      }),
    [apiKey],
  );
}
