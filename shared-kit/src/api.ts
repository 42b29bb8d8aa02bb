import { useMemo } from 'react';
import type { components, paths } from './api-schema.ts';
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

/**
 * @deprecated The untyped client: string paths, bodies and answers unchecked. Use the typed
 * `useApi()` / `createTypedApi()`; kept only for mfe-tools until it is converted.
 */
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

function useSignedInClient(): ApiClient {
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

// ---- The typed client: paths, parameters, bodies and answers from the server's OpenAPI document
// (api-schema.ts, generated by `pnpm --filter @aim/shared-kit gen:api`).

type Method = 'get' | 'post';

/** The paths of the API that answer `M`. */
export type ApiPath<M extends Method> = { [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never }[keyof paths];

type Operation<M extends Method, P extends ApiPath<M>> = paths[P][M];

type BodyOf<R> = R extends { content: infer C }
  ? C extends { 'application/json': infer B }
    ? B
    : C extends { 'multipart/form-data': unknown }
      ? FormData
      : never
  : never;
type BodyOption<O> = O extends { requestBody: infer R } ? { body: BodyOf<R> } : O extends { requestBody?: infer R } ? { body?: BodyOf<R> } : object;

type ParamsOf<O> = O extends { parameters: infer P } ? Pick<P, Extract<keyof P, 'path' | 'query'>> : object;
type ParamsOption<O> = object extends ParamsOf<O> ? { params?: ParamsOf<O> } : { params: ParamsOf<O> };

/** The options of one operation: its body and parameters as the document declares them. */
export type ApiOptions<O> = Omit<RequestOptions, 'body'> & BodyOption<O> & ParamsOption<O>;
type OptionsArg<O> = object extends ApiOptions<O> ? [options?: ApiOptions<O>] : [options: ApiOptions<O>];

type Success<O> = O extends { responses: infer R } ? R[Extract<keyof R, 200 | 201 | 202 | 204>] : never;
/** The JSON answer of an operation on success (undefined when it answers no JSON). */
export type ApiAnswer<O> = Success<O> extends { content: { 'application/json': infer J } } ? J : undefined;

/** The request body of `M path`, e.g. `ApiBody<'post', '/pro/imagine'>` (never when it takes none). */
export type ApiBody<M extends Method, P extends ApiPath<M>> = Operation<M, P> extends { requestBody?: infer R } ? BodyOf<R> : never;

/** The answer of `M path`, e.g. `ApiData<'get', '/billing/config'>`. */
export type ApiData<M extends Method, P extends ApiPath<M>> = ApiAnswer<Operation<M, P>>;
/** A schema of the document's components, e.g. `ApiSchema<'WebhookDelivery'>`. */
export type ApiSchema<N extends keyof components['schemas']> = components['schemas'][N];

/**
 * The client typed by the OpenAPI document: a path the server does not serve, a wrong body or
 * parameter, or a misread answer fails the type-check. Same behaviour as the untyped client
 * (credentials, Idempotency-Key, ApiError and its toast, AbortSignal, FormData).
 */
export type TypedApi = {
  get<P extends ApiPath<'get'>>(path: P, ...options: OptionsArg<Operation<'get', P>>): Promise<ApiData<'get', P>>;
  post<P extends ApiPath<'post'>>(path: P, ...options: OptionsArg<Operation<'post', P>>): Promise<ApiData<'post', P>>;
  /** A binary answer (the invoice PDF). */
  postBlob<P extends ApiPath<'post'>>(path: P, ...options: OptionsArg<Operation<'post', P>>): Promise<Blob>;
};

type LooseOptions = RequestOptions & { params?: { path?: Record<string, string | number>; query?: Record<string, unknown> } };

/** `/a/{id}` with params.path {id} and params.query as the search string (undefined values left out). */
export function buildApiPath(path: string, params: LooseOptions['params']): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.path?.[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} of ${path}`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params?.query ?? {})) if (value !== undefined && value !== null) query.set(key, String(value));
  const search = query.toString();
  return search ? `${filled}?${search}` : filled;
}

export function createTypedApi(client: ApiClient): TypedApi {
  const split = (path: string, options: LooseOptions = {}) => {
    const { params, ...rest } = options;
    return [buildApiPath(path, params), rest] as const;
  };
  return {
    get: async (path: string, options?: LooseOptions) => client.request('GET', ...split(path, options)),
    post: async (path: string, options?: LooseOptions) => client.request('POST', ...split(path, options)),
    postBlob: async (path: string, options?: LooseOptions) => client.blob('POST', ...split(path, options)),
  } as TypedApi;
}

/**
 * The API client for the signed-in user, typed by the OpenAPI document: their api_key in
 * Authorization (spec §7), the session's access token in X-Session-Token, errors as a ~5 s toast.
 */
export function useApi(): TypedApi {
  const client = useSignedInClient();
  return useMemo(() => createTypedApi(client), [client]);
}
