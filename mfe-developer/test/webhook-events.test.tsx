// @vitest-environment jsdom
import { cleanup, screen, waitFor } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@aim/shared-kit/api';
import { ApiKeysPage } from '../src/features/api-keys/api-keys-page.tsx';
import type { ApiKeysGateway } from '../src/features/api-keys/gateway.ts';
import { describeWebhookEvents, toWebhookEventsSetting, WEBHOOK_TEXTS, type WebhookEventName } from '../src/features/api-keys/webhook-rules.ts';

function fakeGateway(saved: WebhookEventName[] | null, over: Partial<ApiKeysGateway> = {}): ApiKeysGateway {
  return {
    rotateKey: vi.fn(async () => 'k'),
    updateWebhookUrl: vi.fn(async (input: string) => input.trim() || null),
    copyText: vi.fn(async () => undefined),
    getSigningSecret: vi.fn(async () => ({ secret: 'whsec_abcd', created_at: '2026-11-24T07:00:00.000Z', previous_secret: null, previous_expires_at: null })),
    rotateSigningSecret: vi.fn(async () => Promise.reject(new Error('not in these tests'))),
    listDeliveries: vi.fn(async () => []),
    resendDelivery: vi.fn(async () => undefined),
    sendTestEvent: vi.fn(async () => undefined),
    listNamedKeys: vi.fn(async () => []),
    createNamedKey: vi.fn(async () => Promise.reject(new Error('not in these tests'))),
    revokeNamedKey: vi.fn(async () => Promise.reject(new Error('not in these tests'))),
    getWebhookEvents: vi.fn(async () => saved),
    updateWebhookEvents: vi.fn(async (events: WebhookEventName[] | null) => events),
    ...over,
  };
}

function renderPage(gateway: ApiKeysGateway) {
  const notices = { success: vi.fn(), error: vi.fn(), alert: vi.fn() };
  render(
    <ApiKeysPage
      gateway={gateway}
      account={{ apiKey: 'ab12cdef34567890wxyz', webhookUrl: 'https://hooks.example.com/aim' }}
      loadFailed={false}
      apiBaseUrl="http://localhost:8080"
      notices={notices}
    />,
    { route: '/dashboard/api-keys' },
  );
  return { notices, user: userEvent.setup() };
}

const box = (name: WebhookEventName) => screen.getByTestId(`webhook-event-${name}`) as HTMLInputElement;

afterEach(cleanup);

describe('webhook event filter rules', () => {
  it.each([
    [['progress', 'completed', 'failed'], null],
    [
      ['failed', 'completed'],
      ['completed', 'failed'],
    ],
    [[], []],
  ] as const)('stores %j as %j', (checked, stored) => {
    expect(toWebhookEventsSetting(checked)).toEqual(stored);
  });

  it.each([
    [null, 'all events (progress, completed, failed)'],
    [[], 'no events'],
    [['completed', 'failed'], 'completed, failed'],
  ] as const)('describes %j as %s', (events, text) => {
    expect(describeWebhookEvents(events)).toBe(text);
  });
});

describe('the webhook event filter on the webhook card', () => {
  it('shows every event ticked when the account has no filter', async () => {
    renderPage(fakeGateway(null));
    expect((await screen.findByTestId('webhook-events-current')).textContent).toBe('Now: all events (progress, completed, failed)');
    expect([box('progress').checked, box('completed').checked, box('failed').checked]).toEqual([true, true, true]);
    expect((screen.getByTestId('webhook-events-save') as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows the saved filter, and saves a new one', async () => {
    const gateway = fakeGateway(['completed', 'failed']);
    const { user, notices } = renderPage(gateway);
    expect((await screen.findByTestId('webhook-events-current')).textContent).toBe('Now: completed, failed');
    expect([box('progress').checked, box('completed').checked, box('failed').checked]).toEqual([false, true, true]);
    await user.click(box('completed'));
    await user.click(screen.getByTestId('webhook-events-save'));
    expect(gateway.updateWebhookEvents).toHaveBeenCalledWith(['failed']);
    await waitFor(() => expect(screen.getByTestId('webhook-events-current').textContent).toBe('Now: failed'));
    expect(notices.success).toHaveBeenCalledWith(WEBHOOK_TEXTS.eventsSaved);
    // all three ticked again: back to every event
    await user.click(box('progress'));
    await user.click(box('completed'));
    await user.click(screen.getByTestId('webhook-events-save'));
    expect(gateway.updateWebhookEvents).toHaveBeenLastCalledWith(null);
    await waitFor(() => expect(screen.getByTestId('webhook-events-current').textContent).toBe('Now: all events (progress, completed, failed)'));
  });

  it('keeps the edit and reports the server reason when saving fails', async () => {
    const gateway = fakeGateway(null, {
      updateWebhookEvents: vi.fn(async () => Promise.reject(new ApiError('events.0: Must be one of progress, completed, failed', 400))),
    });
    const { user, notices } = renderPage(gateway);
    await user.click(await screen.findByTestId('webhook-event-progress'));
    await user.click(screen.getByTestId('webhook-events-save'));
    await waitFor(() => expect(notices.error).toHaveBeenCalled());
    expect(notices.error.mock.calls[0][0]).toBe(WEBHOOK_TEXTS.eventsFailed);
    expect(box('progress').checked).toBe(false);
    expect(screen.getByTestId('webhook-events-current').textContent).toBe('Now: all events (progress, completed, failed)');
  });

  it('offers a retry when the filter cannot be loaded', async () => {
    const getWebhookEvents = vi.fn().mockRejectedValueOnce(new Error('offline')).mockResolvedValue(['failed']);
    const { user } = renderPage(fakeGateway(null, { getWebhookEvents }));
    await user.click(await screen.findByRole('button', { name: 'Retry' }));
    expect((await screen.findByTestId('webhook-events-current')).textContent).toBe('Now: failed');
  });
});
