// @vitest-environment jsdom
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeliveryConsole } from '../src/features/api-keys/components/delivery-console.tsx';
import { describePause, type Delivery, type PausedEndpoint } from '../src/features/api-keys/webhook-rules.ts';

// The delivery console shows the webhook URLs the circuit breaker paused (why, until when) with a
// Resume button, in the light and the dark theme, usable from the keyboard.

const URL = 'https://hooks.example.com/aim';
const PAUSED: PausedEndpoint = {
  url: URL,
  consecutive_failures: 5,
  paused_until: '2026-11-28T06:01:00.000Z',
  last_error: 'timeout after 10000 ms',
  reason: 'Paused after 5 failures in a row; resumes at 2026-11-28T06:01:00.000Z',
};

const waiting: Delivery = {
  id: 'd1111111-1111-4111-8111-111111111111',
  event: 'task.completed',
  task_id: 'aaaaaaaa-1111-4111-8111-111111111111',
  url: URL,
  status: 'pending',
  attempt_count: 5,
  last_status_code: null,
  last_error: 'timeout after 10000 ms',
  latency_ms: 10000,
  next_attempt_at: '2026-11-28T06:01:00.000Z',
  delivered_at: null,
  created_at: '2026-11-28T05:50:00.000Z',
  payload: {},
  attempts: [],
};

function renderConsole(theme: 'light' | 'dark', over: Partial<Parameters<typeof DeliveryConsole>[0]> = {}) {
  let paused = [PAUSED];
  const props = {
    list: vi.fn(async () => [waiting]),
    resend: vi.fn(async () => true),
    sendTest: vi.fn(async () => true),
    listPaused: vi.fn(async () => paused),
    resume: vi.fn(async () => {
      paused = [];
      return true;
    }),
    hasWebhookUrl: true,
    pollMs: 60_000,
    ...over,
  };
  render(
    <div className={theme} data-theme={theme}>
      <DeliveryConsole {...props} />
    </div>,
  );
  return { props, user: userEvent.setup() };
}

afterEach(cleanup);

describe.each(['light', 'dark'] as const)('paused webhook URLs (%s theme)', (theme) => {
  it('shows the paused URL with its reason, until when, and the last error', async () => {
    renderConsole(theme);
    const alert = await screen.findByTestId('paused-endpoint');
    expect(alert.getAttribute('data-url')).toBe(URL);
    expect(alert.textContent).toContain(`Deliveries to ${URL} are paused`);
    expect(alert.textContent).toContain('Paused after 5 failures in a row; resumes at 2026-11-28 06:01:00 UTC.');
    expect(alert.textContent).toContain('Last error: timeout after 10000 ms');
    expect(screen.getByRole('region', { name: 'Paused webhook URLs' })).toBeTruthy();
  });

  it('resumes from the keyboard, then reads the list again and the notice goes away', async () => {
    const { props, user } = renderConsole(theme);
    const resume = await screen.findByRole('button', { name: `Resume deliveries to ${URL}` });
    resume.focus();
    await user.keyboard('{Enter}');
    expect(props.resume).toHaveBeenCalledWith(URL);
    await waitFor(() => expect(screen.queryByTestId('paused-endpoint')).toBeNull());
    expect(vi.mocked(props.listPaused!).mock.calls.length).toBeGreaterThan(1);
  });
});

describe('paused webhook URLs', () => {
  it('shows nothing when none is paused, or when the paused list cannot be read', async () => {
    renderConsole('light', { listPaused: vi.fn(async () => Promise.reject(new Error('offline'))) });
    await screen.findByTestId('delivery-row');
    expect(screen.queryByTestId('paused-endpoints')).toBeNull();
    cleanup();
    renderConsole('light', { listPaused: vi.fn(async () => []) });
    await screen.findByTestId('delivery-row');
    expect(screen.queryByTestId('paused-endpoints')).toBeNull();
  });

  it('keeps the deliveries table working without a paused list (older gateways)', async () => {
    renderConsole('light', { listPaused: undefined, resume: undefined });
    const row = await screen.findByTestId('delivery-row');
    expect(within(row).getByText('task.completed')).toBeTruthy();
    expect(screen.queryByTestId('paused-endpoints')).toBeNull();
  });

  it('words the reason as the console shows it', () => {
    expect(describePause(PAUSED)).toBe('Paused after 5 failures in a row; resumes at 2026-11-28 06:01:00 UTC.');
  });
});
