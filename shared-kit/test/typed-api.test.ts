import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { buildApiPath, createApiClient, createTypedApi } from '../src/api.ts';

function typedApi(body: unknown = {}) {
  const fetchImpl = vi.fn(async (_url: string | URL | Request, _init?: RequestInit) => new Response(JSON.stringify(body), { status: 200 }));
  return { api: createTypedApi(createApiClient({ baseUrl: 'http://api.test', getApiKey: () => 'key-1', fetchImpl })), fetchImpl };
}

describe('buildApiPath', () => {
  it.each([
    ['/auth/api-keys/{id}/revoke', { path: { id: 'a/b' } }, '/auth/api-keys/a%2Fb/revoke'],
    ['/auth/webhook-deliveries', { query: { status: 'failed', before: undefined } }, '/auth/webhook-deliveries?status=failed'],
    ['/billing/config', undefined, '/billing/config'],
  ])('%s %j -> %s', (path, params, expected) => expect(buildApiPath(path, params)).toBe(expected));

  it('refuses a path parameter left out', () => expect(() => buildApiPath('/a/{id}', {})).toThrow('missing path parameter id'));
});

describe('createTypedApi', () => {
  it('sends the typed body, parameters and idempotency key through the client', async () => {
    const { api, fetchImpl } = typedApi({ paymentMethods: [] });
    await api.post('/auth/remove-payment-method', { body: { paymentMethodId: 'pm_1' }, idempotencyKey: 'k1' });
    const [url, init] = fetchImpl.mock.calls[0]!;
    expect(url).toBe('http://api.test/auth/remove-payment-method');
    expect(init?.body).toBe('{"paymentMethodId":"pm_1"}');
    expect((init!.headers as Record<string, string>)['Idempotency-Key']).toBe('k1');
  });

  it('checks paths, bodies, parameters and answers at compile time', async () => {
    const { api } = typedApi({ provider: 'sandbox' });
    expectTypeOf((await api.get('/billing/config')).provider).toEqualTypeOf<'sandbox' | 'stripe'>();
    expectTypeOf(api.post<'/upload'>).returns.resolves.toEqualTypeOf<{ imageURL: string; expires_at: string }>();
    // @ts-expect-error a path the server does not serve
    await api.get('/nope').catch(() => {});
    // @ts-expect-error the body is required
    await api.post('/auth/topup').catch(() => {});
    // @ts-expect-error a field of the wrong type
    await api.post('/auth/topup', { body: { amount: 'ten' } }).catch(() => {});
    // @ts-expect-error the path parameter is required
    await api.post('/auth/api-keys/{id}/revoke').catch(() => {});
  });
});
