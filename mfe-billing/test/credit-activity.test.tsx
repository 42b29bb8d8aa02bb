// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ActivityGateway, HistoryRow } from '../src/features/activity/activity-gateway.ts';
import { CreditActivity } from '../src/features/activity/credit-activity.tsx';
import { ACTIVITY_TEXTS, HISTORY_PAGE_SIZE } from '../src/features/activity/history-rules.ts';
import { SubscriptionPage } from '../src/features/subscription/subscription-page.tsx';
import { fakeGateway, fakeNotices, makeAccount } from './support/fake-gateway.ts';
import { render } from '@aim/shared-kit/testing/render';

afterEach(cleanup);

const today = new Date().toISOString().slice(0, 10);

function historyRow(i: number, over: Partial<HistoryRow> = {}): HistoryRow {
  return {
    id: 1000 - i,
    created_at: new Date(Date.UTC(2026, 10, 24, 7, 0, 0) - i * 1000).toISOString(),
    delta: -4,
    balance_after: 500 + i * 4,
    kind: 'hold',
    task_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    task_type: 'imagine',
    invoice_number: null,
    ...over,
  };
}

function fakeActivity(over: Partial<ActivityGateway> = {}): ActivityGateway {
  return {
    usage: vi.fn(async () => [
      { day: today, task_type: 'imagine', credits: 8 },
      { day: today, task_type: 'suno', credits: 3 },
    ]),
    history: vi.fn(async () => [historyRow(0), historyRow(1, { kind: 'plan', delta: 1000, task_id: null, task_type: null, invoice_number: 'INV-1001' })]),
    exportCsv: vi.fn(async () => undefined),
    ...over,
  };
}

// a loaded machine renders Chakra slowly: a generous timeout, no timed assertion
describe('Where your credits went', { timeout: 20_000 }, () => {
  it('sits on the Subscription screen under the plans, the spec’s texts unchanged', async () => {
    render(<SubscriptionPage gateway={fakeGateway()} account={makeAccount()} status="ready" notify={fakeNotices()} activity={fakeActivity()} />, {
      route: '/',
    });
    const section = await screen.findByTestId('credit-activity');
    expect(within(section).getByRole('heading', { level: 2, name: 'Where your credits went' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: 'Subscription' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Get credits' })).toBeTruthy();
    expect(
      within(section)
        .getAllByRole('tab')
        .map((t) => t.textContent),
    ).toEqual(['Usage', 'Credit history']);
  });

  it('shows today’s usage by family with totals, readable from the keyboard and as a table', async () => {
    const { user } = render(<CreditActivity gateway={fakeActivity()} />, { route: '/' });
    expect(await screen.findByTestId('usage-total')).toHaveProperty('textContent', '11 credits in the last 30 days');
    expect(screen.getByTestId('usage-family-midjourney').textContent).toBe('Midjourney 8');
    expect(screen.getByTestId('usage-family-audio').textContent).toBe('Audio 3');
    const bars = screen.getAllByTestId('usage-bar');
    expect(bars).toHaveLength(30);
    // one tab stop, on today; its name carries its values
    expect(bars.filter((b) => b.getAttribute('tabindex') === '0')).toEqual([bars[29]]);
    expect(screen.getByRole('img', { name: /: 11 credits \(Midjourney 8, Audio 3\)$/ })).toBe(bars[29]);
    act(() => bars[29].focus());
    expect(screen.getByTestId('usage-readout').textContent).toMatch(/11 credits \(Midjourney 8, Audio 3\)$/);
    fireEvent.keyDown(bars[29], { key: 'ArrowLeft' });
    expect(document.activeElement).toBe(bars[28]);
    expect(screen.getByTestId('usage-readout').textContent).toMatch(/: 0 credits$/);
    fireEvent.keyDown(bars[28], { key: 'Home' });
    expect(document.activeElement).toBe(bars[0]);
    fireEvent.keyDown(bars[0], { key: 'End' });
    expect(document.activeElement).toBe(bars[29]);

    await user.click(screen.getByText('Table'));
    const table = await screen.findByTestId('usage-table');
    const rows = within(table).getAllByTestId('usage-row');
    expect(rows).toHaveLength(1);
    expect(
      within(rows[0])
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual([expect.any(String), '8', '3', '11']);
    expect(screen.queryByTestId('usage-chart')).toBeNull();
  });

  it('says when nothing was spent, and offers a retry when usage cannot load', async () => {
    render(<CreditActivity gateway={fakeActivity({ usage: vi.fn(async () => []) })} />, { route: '/' });
    expect((await screen.findByTestId('usage-empty')).textContent).toBe(ACTIVITY_TEXTS.usageEmpty);
    cleanup();
    const usage = vi
      .fn()
      .mockRejectedValueOnce(new Error('down'))
      .mockResolvedValue([{ day: today, task_type: 'luma', credits: 5 }]);
    const { user } = render(<CreditActivity gateway={fakeActivity({ usage })} />, { route: '/' });
    const error = await screen.findByTestId('usage-error');
    await user.click(within(error).getByRole('button', { name: 'Retry' }));
    expect((await screen.findByTestId('usage-family-video')).textContent).toBe('Video 5');
  });

  it('lists the credit history with links to the task and the invoice, and pages on with the last row as cursor', async () => {
    const first = Array.from({ length: HISTORY_PAGE_SIZE }, (_, i) => historyRow(i));
    const history = vi.fn(async (after: { id: number } | null) => (after ? [historyRow(HISTORY_PAGE_SIZE, { kind: 'refund', delta: 4 })] : first));
    const { user } = render(<CreditActivity gateway={fakeActivity({ history })} />, { route: '/' });
    await user.click(screen.getByRole('tab', { name: 'Credit history' }));
    await waitFor(() => expect(screen.getAllByTestId('history-row')).toHaveLength(HISTORY_PAGE_SIZE));
    const row = screen.getAllByTestId('history-row')[0];
    expect(within(row).getByTestId('history-delta').textContent).toBe('-4');
    expect(within(row).getByTestId('history-balance').textContent).toBe('500');
    expect(
      within(row)
        .getByRole('link', { name: /in Task Logs$/ })
        .getAttribute('href'),
    ).toBe(`/dashboard/task-logs?id=${first[0].task_id}`);
    await user.click(screen.getByTestId('history-more'));
    await waitFor(() => expect(screen.getAllByTestId('history-row')).toHaveLength(HISTORY_PAGE_SIZE + 1));
    // the cursor is the last row's exact created_at and id
    const last = first[HISTORY_PAGE_SIZE - 1]!;
    expect(history).toHaveBeenLastCalledWith({ created_at: last.created_at, id: last.id });
    expect(screen.queryByTestId('history-more')).toBeNull();
  });

  it('links a plan grant to Invoices and exports the CSV', async () => {
    const gateway = fakeActivity();
    const { user } = render(<CreditActivity gateway={gateway} />, { route: '/' });
    await user.click(screen.getByRole('tab', { name: 'Credit history' }));
    expect((await screen.findByRole('link', { name: 'Invoice INV-1001' })).getAttribute('href')).toBe('/dashboard/billing/invoices');
    await user.click(screen.getByTestId('export-history'));
    expect(gateway.exportCsv).toHaveBeenCalledWith('credit-history');
  });

  it('shows the history’s empty and error states, and a failed export', async () => {
    render(<CreditActivity gateway={fakeActivity({ history: vi.fn(async () => []) })} />, { route: '/' });
    await waitFor(() => expect(screen.getByTestId('history-empty').textContent).toBe(ACTIVITY_TEXTS.historyEmpty));
    cleanup();

    const { user: failing } = render(
      <CreditActivity
        gateway={fakeActivity({ history: vi.fn(async () => Promise.reject(new Error('x'))), exportCsv: vi.fn(async () => Promise.reject(new Error('x'))) })}
      />,
      { route: '/' },
    );
    expect(await screen.findByTestId('history-error')).toBeTruthy();
    await failing.click(screen.getByRole('tab', { name: 'Credit history' }));
    await failing.click(screen.getByTestId('export-history'));
    expect((await screen.findByText(ACTIVITY_TEXTS.exportFailed)).getAttribute('role')).toBe('alert');
  });
});
