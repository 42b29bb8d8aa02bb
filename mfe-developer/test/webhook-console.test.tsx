// @vitest-environment jsdom
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@aim/shared-kit/api';
import { ApiKeysPage } from '../src/features/api-keys/api-keys-page.tsx';
import type { ApiKeysGateway } from '../src/features/api-keys/gateway.ts';
import { deliveriesQuery, type Delivery, maskSecret, type SigningSecret, WEBHOOK_TEXTS } from '../src/features/api-keys/webhook-rules.ts';

const OLD: SigningSecret = {
  secret: 'whsec_b2xkIHNlY3JldCBieXRlcyBoZXJlIQ==',
  created_at: '2026-11-24T07:00:00.000Z',
  previous_secret: null,
  previous_expires_at: null,
};
const NEW: SigningSecret = {
  secret: 'whsec_bmV3IHNlY3JldCBieXRlcyB0b28hIQ==',
  created_at: '2026-11-24T08:00:00.000Z',
  previous_secret: OLD.secret,
  previous_expires_at: '2026-11-25T08:00:00.000Z',
};

const delivery = (over: Partial<Delivery> = {}): Delivery => ({
  id: 'd1111111-1111-4111-8111-111111111111',
  event: 'task.completed',
  task_id: 'aaaaaaaa-1111-4111-8111-111111111111',
  url: 'https://hooks.example.com/aim',
  status: 'delivered',
  attempt_count: 2,
  last_status_code: 200,
  last_error: null,
  latency_ms: 42,
  next_attempt_at: null,
  delivered_at: '2026-11-24T07:31:02.000Z',
  created_at: '2026-11-24T07:31:01.000Z',
  payload: { task_id: 'aaaaaaaa-1111-4111-8111-111111111111', status: 'finished' },
  attempts: [
    { attempt: 1, status_code: 500, latency_ms: 12, response_excerpt: 'boom', error: 'HTTP 500', at: '2026-11-24T07:31:01.500Z' },
    { attempt: 2, status_code: 200, latency_ms: 42, response_excerpt: 'ok', error: null, at: '2026-11-24T07:31:12.000Z' },
  ],
  ...over,
});

function fakeGateway(over: Partial<ApiKeysGateway> = {}): ApiKeysGateway {
  return {
    rotateKey: vi.fn(async () => 'k'),
    updateWebhookUrl: vi.fn(async (input: string) => input.trim() || null),
    copyText: vi.fn(async () => undefined),
    getSigningSecret: vi.fn(async () => OLD),
    rotateSigningSecret: vi.fn(async () => NEW),
    listDeliveries: vi.fn(async () => [delivery()]),
    resendDelivery: vi.fn(async () => undefined),
    sendTestEvent: vi.fn(async () => undefined),
    listNamedKeys: vi.fn(async () => []),
    createNamedKey: vi.fn(async () => Promise.reject(new Error('not in these tests'))),
    revokeNamedKey: vi.fn(async () => Promise.reject(new Error('not in these tests'))),
    ...over,
  };
}

function renderPage(gateway: ApiKeysGateway, webhookUrl: string | null = 'https://hooks.example.com/aim') {
  const notices = { success: vi.fn(), error: vi.fn(), alert: vi.fn() };
  render(
    <ApiKeysPage
      gateway={gateway}
      account={{ apiKey: 'ab12cdef34567890wxyz', webhookUrl }}
      loadFailed={false}
      apiBaseUrl="http://localhost:8080"
      notices={notices}
    />,
    { route: '/dashboard/api-keys' },
  );
  return { notices, user: userEvent.setup() };
}

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('webhook rules', () => {
  it('masks a secret to its prefix and last 4 characters', () => {
    expect(maskSecret(OLD.secret, false)).toBe(`whsec_${'•'.repeat(24)}IQ==`);
    expect(maskSecret(OLD.secret, true)).toBe(OLD.secret);
    expect(maskSecret('whsec_ab', false)).toBe('whsec_••');
    expect(deliveriesQuery('all')).toEqual({ limit: 50 });
    expect(deliveriesQuery('failed')).toEqual({ limit: 50, status: 'failed' });
  });
});

describe('the signing secret', () => {
  it('is masked, revealed on request, copied as is', async () => {
    const gateway = fakeGateway();
    const { user, notices } = renderPage(gateway);
    const value = await screen.findByTestId('signing-secret-value');
    expect(value.textContent).toBe(maskSecret(OLD.secret, false));
    await user.click(screen.getByRole('button', { name: 'Show secret' }));
    expect(value.textContent).toBe(OLD.secret);
    expect(screen.getByRole('button', { name: 'Hide secret' }).getAttribute('aria-pressed')).toBe('true');
    await user.click(screen.getByRole('button', { name: 'Copy secret' }));
    expect(gateway.copyText).toHaveBeenCalledWith(OLD.secret);
    expect(notices.success).toHaveBeenCalledWith(WEBHOOK_TEXTS.secretCopied);
  });

  it('rotates only after confirmation, then shows the new secret and until when the old one signs', async () => {
    const gateway = fakeGateway();
    const { user, notices } = renderPage(gateway);
    await user.click(await screen.findByRole('button', { name: 'Rotate secret' }));
    const dialog = await screen.findByRole('alertdialog', { name: WEBHOOK_TEXTS.rotateSecretConfirm });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(gateway.rotateSigningSecret).not.toHaveBeenCalled();

    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Rotate' }));
    await waitFor(() => expect(screen.getByTestId('signing-secret-value').textContent).toBe(maskSecret(NEW.secret, false)));
    expect(notices.success).toHaveBeenCalledWith(WEBHOOK_TEXTS.secretRotated);
    expect(screen.getByTestId('signing-secret-note').textContent).toContain('The previous secret also signs deliveries until 2026-11-25 08:00:00 UTC.');
  });

  it('reports a failed rotation and keeps the secret; a failed load offers Retry', async () => {
    const load = vi.fn<ApiKeysGateway['getSigningSecret']>().mockRejectedValueOnce(new Error('down')).mockResolvedValue(OLD);
    const gateway = fakeGateway({ getSigningSecret: load, rotateSigningSecret: vi.fn(async () => Promise.reject(new ApiError('nope', 500))) });
    const { user, notices } = renderPage(gateway);
    const error = await screen.findByTestId('signing-secret-error');
    expect(error.textContent).toContain(WEBHOOK_TEXTS.secretLoadFailed);
    await user.click(within(error).getByRole('button', { name: 'Retry' }));
    expect((await screen.findByTestId('signing-secret-value')).textContent).toBe(maskSecret(OLD.secret, false));

    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Rotate' }));
    await waitFor(() => expect(notices.error).toHaveBeenCalledWith(WEBHOOK_TEXTS.rotateSecretFailed, null));
    expect(screen.getByTestId('signing-secret-value').textContent).toBe(maskSecret(OLD.secret, false));
  });
});

describe('the delivery console', () => {
  it('lists deliveries with event, task, time, attempts, last status, latency, next retry and status', async () => {
    renderPage(
      fakeGateway({
        listDeliveries: vi.fn(async () => [
          delivery(),
          delivery({
            id: 'd2',
            event: 'webhook.test',
            task_id: null,
            status: 'pending',
            attempt_count: 1,
            last_status_code: null,
            last_error: 'ECONNREFUSED',
            latency_ms: 3,
            next_attempt_at: '2026-11-24T07:40:00.000Z',
            attempts: [],
          }),
        ]),
      }),
    );
    const rows = await screen.findAllByTestId('delivery-row');
    expect(rows).toHaveLength(2);
    const cells = (row: HTMLElement) =>
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent);
    expect(cells(rows[0]).slice(0, 8)).toEqual(['task.completed', 'aaaaaaaa…', '2026-11-24 07:31:01 UTC', '2', '200', '42 ms', '–', 'delivered']);
    expect(cells(rows[1]).slice(0, 8)).toEqual([
      'webhook.test',
      '–',
      '2026-11-24 07:31:01 UTC',
      '1',
      'No answer',
      '3 ms',
      '2026-11-24 07:40:00 UTC',
      'pending',
    ]);
  });

  it('shows the payload and every attempt with its response excerpt, and resends from the details', async () => {
    const gateway = fakeGateway();
    const { user, notices } = renderPage(gateway);
    await user.click(await screen.findByRole('button', { name: /^Details of task.completed delivery/ }));
    const dialog = await screen.findByTestId('delivery-detail');
    expect(JSON.parse(within(dialog).getByTestId('delivery-payload').textContent ?? '')).toEqual(delivery().payload);
    const attempts = within(dialog).getAllByTestId('delivery-attempt');
    expect(attempts.map((a) => a.textContent)).toEqual([
      'Attempt 1 · 2026-11-24 07:31:01 UTC · 500 · 12 msHTTP 500boom',
      'Attempt 2 · 2026-11-24 07:31:12 UTC · 200 · 42 msok',
    ]);
    const calls = vi.mocked(gateway.listDeliveries).mock.calls.length;
    await user.click(within(dialog).getByRole('button', { name: 'Resend this delivery' }));
    expect(gateway.resendDelivery).toHaveBeenCalledWith(delivery().id);
    expect(notices.success).toHaveBeenCalledWith(WEBHOOK_TEXTS.resent);
    await waitFor(() => expect(vi.mocked(gateway.listDeliveries).mock.calls.length).toBeGreaterThan(calls));
  });

  it("reports a refused resend with the server's reason", async () => {
    const gateway = fakeGateway({
      resendDelivery: vi.fn(async () => Promise.reject(new ApiError('This delivery is being sent right now; try again in a moment', 409))),
    });
    const { user, notices } = renderPage(gateway);
    await user.click(await screen.findByRole('button', { name: /^Resend task.completed delivery/ }));
    await waitFor(() => expect(notices.error).toHaveBeenCalledWith(WEBHOOK_TEXTS.resendFailed, 'This delivery is being sent right now; try again in a moment'));
    expect(notices.alert).not.toHaveBeenCalled();
  });

  it('filters by status, with its own empty text', async () => {
    const list = vi.fn<ApiKeysGateway['listDeliveries']>(async (filter) => (filter === 'failed' ? [] : [delivery()]));
    const { user } = renderPage(fakeGateway({ listDeliveries: list }));
    await screen.findAllByTestId('delivery-row');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'failed');
    await waitFor(() => expect(screen.getByTestId('delivery-empty').textContent).toBe(WEBHOOK_TEXTS.noDeliveriesOfStatus));
    expect(list).toHaveBeenLastCalledWith('failed', expect.any(AbortSignal));
  });

  it('sends a test event (only with a webhook URL) and shows the empty state until one arrives', async () => {
    const gateway = fakeGateway({ listDeliveries: vi.fn(async () => []) });
    const { user, notices } = renderPage(gateway);
    // the same box says Loading... first: wait for the list's answer
    await waitFor(() => expect(screen.getByTestId('delivery-empty').textContent).toContain(WEBHOOK_TEXTS.noDeliveries));
    await user.click(screen.getByRole('button', { name: 'Send test event' }));
    expect(gateway.sendTestEvent).toHaveBeenCalledOnce();
    expect(notices.success).toHaveBeenCalledWith(WEBHOOK_TEXTS.testSent);
    cleanup();
    renderPage(fakeGateway(), null);
    expect((await screen.findByRole('button', { name: 'Send test event' })).hasAttribute('disabled')).toBe(true);
    expect(screen.getByTestId('test-event-hint').textContent).toBe('Save a webhook URL above to send a test event.');
  });

  it('shows an error with Retry when the list cannot be loaded', async () => {
    const list = vi.fn<ApiKeysGateway['listDeliveries']>().mockRejectedValueOnce(new ApiError('down', 500)).mockResolvedValue([delivery()]);
    const { user } = renderPage(fakeGateway({ listDeliveries: list }));
    const empty = await screen.findByTestId('delivery-empty');
    await waitFor(() => expect(empty.textContent).toContain(WEBHOOK_TEXTS.deliveriesLoadFailed));
    await user.click(within(empty).getByRole('button', { name: 'Retry' }));
    expect(await screen.findAllByTestId('delivery-row')).toHaveLength(1);
  });

  it('updates live: reads the list again every 5 seconds while the page is open', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const list = vi.fn<ApiKeysGateway['listDeliveries']>().mockResolvedValueOnce([]).mockResolvedValue([delivery()]);
    renderPage(fakeGateway({ listDeliveries: list }));
    await screen.findByText(WEBHOOK_TEXTS.noDeliveries);
    await act(async () => {
      vi.advanceTimersByTime(5000);
    });
    expect(await screen.findAllByTestId('delivery-row')).toHaveLength(1);
  });
});
