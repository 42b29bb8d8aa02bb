import { describe, expect, it, vi } from 'vitest';
import { ApiError, DEFAULT_API_ERROR, createApiClient, readApiErrorMessage } from '../src/api.ts';

describe('readApiErrorMessage', () => {
  it.each([
    [{ errors: [{ msg: 'Insufficient credits' }] }, 'Insufficient credits'],
    [{ errors: [{ msg: 'first' }, { msg: 'second' }] }, 'first'],
    [{ errors: [] }, DEFAULT_API_ERROR],
    [{ errors: [{ msg: '' }] }, DEFAULT_API_ERROR],
    [{ message: 'other shape' }, DEFAULT_API_ERROR],
    [null, DEFAULT_API_ERROR],
  ])('%j -> %s', (body, expected) => expect(readApiErrorMessage(body)).toBe(expected));
});

function fakeFetch(status: number, body: unknown) {
  return vi.fn(async (_url: string | URL | Request, _init?: RequestInit) => new Response(body === undefined ? null : JSON.stringify(body), { status }));
}

describe('createApiClient', () => {
  it('sends the api key as Authorization and JSON bodies', async () => {
    const fetchImpl = fakeFetch(200, { task_id: 't1' });
    const api = createApiClient({ baseUrl: 'http://api.test', getApiKey: () => 'key-123', fetchImpl });
    await expect(api.post('/pro/imagine', { prompt: 'cat' })).resolves.toEqual({ task_id: 't1' });
    const [url, init] = fetchImpl.mock.calls[0]!;
    expect(url).toBe('http://api.test/pro/imagine');
    expect(init?.headers).toEqual({ Authorization: 'key-123', 'Content-Type': 'application/json' });
    expect(init?.body).toBe('{"prompt":"cat"}');
  });

  it('sends the signed-in session as X-Session-Token beside the api key, and nothing when there is none', async () => {
    const fetchImpl = fakeFetch(200, {});
    let token: string | null = 'eyJ.session.token';
    const api = createApiClient({ baseUrl: '', getApiKey: () => 'key-123', getSessionToken: async () => token, fetchImpl });
    await api.post('/auth/topup', { amount: 10 });
    expect(fetchImpl.mock.calls[0]![1]?.headers).toEqual({
      Authorization: 'key-123',
      'X-Session-Token': 'eyJ.session.token',
      'Content-Type': 'application/json',
    });
    token = null;
    await api.get('/account');
    expect(fetchImpl.mock.calls[1]![1]?.headers).toEqual({ Authorization: 'key-123' });
  });

  it('sends the idempotency key of a user action, and none when the caller gives none', async () => {
    const fetchImpl = fakeFetch(200, { task_id: 't1' });
    const api = createApiClient({ baseUrl: '', getApiKey: () => 'key-123', fetchImpl });
    const action = crypto.randomUUID();
    await api.post('/pro/imagine', { prompt: 'cat' }, { idempotencyKey: action });
    await api.post('/pro/imagine', { prompt: 'cat' }, { idempotencyKey: action });
    await api.post('/pro/imagine', { prompt: 'dog' });
    const sent = fetchImpl.mock.calls.map(([, init]) => (init?.headers as Record<string, string> | undefined)?.['Idempotency-Key']);
    expect(sent).toEqual([action, action, undefined]);
  });

  it('still sends the call when reading the session fails (the server answers session_required)', async () => {
    const fetchImpl = fakeFetch(200, {});
    const api = createApiClient({ baseUrl: '', getApiKey: () => 'k', getSessionToken: () => Promise.reject(new Error('storage')), fetchImpl });
    await api.get('/account');
    expect(fetchImpl.mock.calls[0]![1]?.headers).toEqual({ Authorization: 'k' });
  });

  it.each([
    [400, { errors: [{ msg: 'Prompt is required' }] }, 'Prompt is required'],
    [500, { oops: true }, DEFAULT_API_ERROR],
    [502, undefined, DEFAULT_API_ERROR],
  ])('HTTP %i -> rejects with and reports %s', async (status, body, message) => {
    const onError = vi.fn();
    const api = createApiClient({ baseUrl: '', getApiKey: () => 'k', onError, fetchImpl: fakeFetch(status, body) });
    const err = await api.get('/x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ message, status });
    expect(onError).toHaveBeenCalledWith(message);
  });

  it('shows the rate limit message of a 429 in the toast, with the wait the server gave', async () => {
    const msg = 'Too many requests: at most 120 submits per minute for this API key. Retry in 17 s.';
    const fetchImpl = vi.fn(
      async () =>
        new Response(JSON.stringify({ message: msg, errors: [{ msg, code: 'too_many_requests' }] }), {
          status: 429,
          headers: { 'Content-Type': 'application/json', 'Retry-After': '17', 'RateLimit-Limit': '120', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '17' },
        }),
    );
    const onError = vi.fn();
    const api = createApiClient({ baseUrl: '', getApiKey: () => 'k', onError, fetchImpl });
    await expect(api.post('/pro/imagine', { prompt: 'cat' })).rejects.toMatchObject({ message: msg, status: 429 });
    expect(onError).toHaveBeenCalledExactlyOnceWith(msg);
  });

  it('does not report when the caller turns the toast off, and maps network failures', async () => {
    const onError = vi.fn();
    const fetchImpl = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    const api = createApiClient({ baseUrl: '', getApiKey: () => null, onError, fetchImpl });
    await expect(api.get('/x', { toastOnError: false })).rejects.toMatchObject({ message: DEFAULT_API_ERROR, status: 0 });
    expect(onError).not.toHaveBeenCalled();
  });
});
