// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useLocation } from 'react-router-dom';
import type { LogPage, LogRow, TaskLogsGateway } from '../src/features/task-logs/gateway.ts';
import type { LogQuery } from '../src/features/task-logs/log-rules.ts';
import { TaskLogsPage } from '../src/features/task-logs/task-logs-page.tsx';

const EMAIL = 'logger@example.com';

/** `n` tasks, newest first, one minute apart; every third failed and refunded. */
function tasks(n: number): LogRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    type: i % 2 ? 'flux-imagine' : 'imagine',
    status: i % 3 === 2 ? 'failed' : 'finished',
    percentage: i % 3 === 2 ? 40 : 100,
    created_at: new Date(Date.UTC(2026, 10, 22, 12, 0) - i * 60_000).toISOString(),
    refund: i % 3 === 2 ? 4 : 0,
    result: i % 3 === 2 ? { message: 'Upstream refused the prompt' } : { image_url: `http://localhost:8080/media/${i}.png` },
  }));
}

/** A gateway over an in-memory task list that pages and filters like the real one. */
function fakeGateway(all: LogRow[], over: Partial<TaskLogsGateway> = {}) {
  const calls: LogQuery[] = [];
  const gateway: TaskLogsGateway = {
    list: vi.fn(async (_email: string, query: LogQuery): Promise<LogPage> => {
      calls.push(query);
      const matching = all.filter(
        (t) =>
          (query.status === 'all' || t.status === query.status) &&
          (query.type === 'all' || (query.type === 'flux') === (t.type === 'flux-imagine')) &&
          (!query.taskId || t.id === query.taskId),
      );
      const from = (query.page - 1) * query.pageSize;
      return { rows: matching.slice(from, from + query.pageSize), total: matching.length };
    }),
    movements: vi.fn(async () => []),
    exportCsv: vi.fn(async () => undefined),
    keys: vi.fn(async () => []),
    cancel: vi.fn(async () => undefined),
    ...over,
  };
  return { gateway, calls };
}

let location = '';
function LocationProbe() {
  const loc = useLocation();
  location = loc.pathname + loc.search;
  return null;
}

function renderPage(gateway: TaskLogsGateway, url = '/dashboard/task-logs') {
  render(
    <>
      <TaskLogsPage gateway={gateway} email={EMAIL} />
      <LocationProbe />
    </>,
    { route: url },
  );
  return userEvent.setup();
}

const rows = () => screen.queryAllByTestId('task-log-row');
const cellsOf = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .map((c) => c.textContent);

afterEach(cleanup);

describe('Task Logs', () => {
  it("shows 'Loading...' until the first page arrives, then the columns of each task, newest first", async () => {
    let answer!: (page: LogPage) => void;
    const { gateway } = fakeGateway([], { list: vi.fn(() => new Promise<LogPage>((r) => (answer = r))) });
    renderPage(gateway);
    expect(screen.getByRole('heading', { level: 1, name: 'Task Logs' })).toBeTruthy();
    expect(screen.getByTestId('task-logs-empty').textContent).toBe('Loading...');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Task ID',
      'Task Type',
      'Status',
      'Percentage',
      'Created At',
      'Refund',
      'Details',
    ]);

    answer({ rows: tasks(3), total: 3 });
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(cellsOf(rows()[0])).toEqual(['00000000-0000-4000-8000-000000000000', 'imagine', 'finished', '100%', '2026-11-22 12:00:00 UTC', '', 'View']);
    expect(cellsOf(rows()[2])).toEqual(['00000000-0000-4000-8000-000000000002', 'imagine', 'failed', '40%', '2026-11-22 11:58:00 UTC', '+4', 'View']);
    expect(gateway.list).toHaveBeenCalledWith(EMAIL, { status: 'all', type: 'all', taskId: '', page: 1, pageSize: 20, key: 'all' });
  });

  it("shows 'No results.' when nothing matches", async () => {
    renderPage(fakeGateway([]).gateway);
    await waitFor(() => expect(screen.getByTestId('task-logs-empty').textContent).toBe('No results.'));
  });

  it('switches Created At between UTC (the default) and local time', async () => {
    const user = renderPage(fakeGateway(tasks(1)).gateway);
    await waitFor(() => expect(rows()).toHaveLength(1));
    const toggle = screen.getByRole('button', { name: 'Show Local Time' });
    await user.click(toggle);
    expect(screen.getByRole('button', { name: 'Show UTC' })).toBeTruthy();
    expect(screen.getByTestId('created-at').textContent).not.toContain('UTC');
    await user.click(screen.getByRole('button', { name: 'Show UTC' }));
    expect(screen.getByTestId('created-at').textContent).toBe('2026-11-22 12:00:00 UTC');
  });

  it('filters by status and type from page 1, keeping the view in the URL', async () => {
    const { gateway, calls } = fakeGateway(tasks(30));
    const user = renderPage(gateway, '/dashboard/task-logs?page=2');
    await waitFor(() => expect(rows()).toHaveLength(10));
    await user.selectOptions(screen.getByTestId('status-filter'), 'failed');
    await waitFor(() => expect(rows()).toHaveLength(10));
    expect(rows().every((r) => cellsOf(r)[2] === 'failed')).toBe(true);
    expect(location).toBe('/dashboard/task-logs?status=failed');

    await user.selectOptions(screen.getByTestId('type-filter'), 'flux');
    await waitFor(() => expect(location).toBe('/dashboard/task-logs?status=failed&type=flux'));
    await waitFor(() => expect(rows().every((r) => cellsOf(r)[1] === 'flux-imagine')).toBe(true));
    expect(calls.at(-1)).toMatchObject({ status: 'failed', type: 'flux', page: 1 });
  });

  it('keeps both of two filter changes made before the page re-renders', async () => {
    const { gateway, calls } = fakeGateway(tasks(30));
    renderPage(gateway, '/dashboard/task-logs?status=failed&type=flux');
    await waitFor(() => expect(rows().length).toBeGreaterThan(0));
    act(() => {
      fireEvent.change(screen.getByTestId('status-filter'), { target: { value: 'all' } });
      fireEvent.change(screen.getByTestId('type-filter'), { target: { value: 'all' } });
    });
    await waitFor(() => expect(location).toBe('/dashboard/task-logs'));
    await waitFor(() => expect(calls.at(-1)).toMatchObject({ status: 'all', type: 'all' }));
  });

  it('pages with Previous and Next and a page size, saying how many tasks there are', async () => {
    const { gateway } = fakeGateway(tasks(45));
    const user = renderPage(gateway);
    await waitFor(() => expect(rows()).toHaveLength(20));
    expect(screen.getByTestId('page-of').textContent).toBe('Page 1 of 3');
    expect(screen.getByTestId('task-count').textContent).toBe('45 tasks');
    expect((screen.getByRole('button', { name: 'Previous' }) as HTMLButtonElement).disabled).toBe(true);

    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(screen.getByTestId('page-of').textContent).toBe('Page 2 of 3'));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(rows()).toHaveLength(5));
    expect((screen.getByRole('button', { name: 'Next' }) as HTMLButtonElement).disabled).toBe(true);
    expect(location).toBe('/dashboard/task-logs?page=3');

    await user.selectOptions(screen.getByTestId('page-size'), '50');
    await waitFor(() => expect(rows()).toHaveLength(45));
    expect(screen.getByTestId('page-of').textContent).toBe('Page 1 of 1');
  });

  it('finds one task by its full id, refuses a partial one, and clears back to all', async () => {
    const all = tasks(5);
    const { gateway } = fakeGateway(all);
    const user = renderPage(gateway);
    await waitFor(() => expect(rows()).toHaveLength(5));
    const input = screen.getByTestId('task-id-filter');

    await user.type(input, '00000000{Enter}');
    expect(screen.getByText('Enter a full task ID (36 characters, like 0b8e…-…).')).toBeTruthy();
    expect(rows()).toHaveLength(5);

    await user.clear(input);
    await user.type(input, `${all[3].id}{Enter}`);
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(rows()[0].dataset.taskId).toBe(all[3].id);

    await user.click(screen.getByRole('button', { name: 'Clear' }));
    await waitFor(() => expect(rows()).toHaveLength(5));
    expect((input as HTMLInputElement).value).toBe('');
  });

  it("shows a task's result data in the detail view", async () => {
    const all = tasks(3);
    const user = renderPage(fakeGateway(all).gateway);
    await waitFor(() => expect(rows()).toHaveLength(3));
    await user.click(screen.getByRole('button', { name: `Details of ${all[2].id}` }));
    const detail = await screen.findByTestId('task-detail');
    expect(within(detail).getByText(`Task ${all[2].id}`)).toBeTruthy();
    expect(JSON.parse(within(detail).getByTestId('task-detail-result').textContent!)).toEqual({ message: 'Upstream refused the prompt' });
    await user.click(within(detail).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByTestId('task-detail')).toBeNull());
  });

  it("shows a failed task's hold and refund in its detail, and says when movements cannot load", async () => {
    const all = tasks(3);
    const movements = vi.fn(async () => [
      { id: 1, created_at: all[2].created_at, kind: 'hold', delta: -4, balance_after: 96 },
      { id: 2, created_at: all[2].created_at, kind: 'refund', delta: 4, balance_after: 100 },
    ]);
    const user = renderPage(fakeGateway(all, { movements }).gateway);
    await waitFor(() => expect(rows()).toHaveLength(3));
    await user.click(screen.getByRole('button', { name: `Details of ${all[2].id}` }));
    const detail = await screen.findByTestId('task-detail');
    await waitFor(() => expect(within(detail).getAllByTestId('task-movement')).toHaveLength(2));
    expect(
      within(detail)
        .getAllByTestId('task-movement')
        .map((m) => m.textContent),
    ).toEqual(['Held 4 credits · balance after 96', 'Refunded 4 credits · balance after 100']);
    expect(movements).toHaveBeenCalledWith(all[2].id);
    await user.click(within(detail).getByRole('button', { name: 'Close' }));
    cleanup();

    const failing = renderPage(fakeGateway(all, { movements: vi.fn(async () => Promise.reject(new Error('x'))) }).gateway);
    await waitFor(() => expect(rows()).toHaveLength(3));
    await failing.click(screen.getByRole('button', { name: `Details of ${all[0].id}` }));
    expect((await screen.findByText('The credit movements could not be loaded.')).getAttribute('role')).toBe('alert');
  });

  it('filters by API key (All keys, Primary key, each named key), names the key in the detail, and exports only all keys', async () => {
    const KEY_ID = '5a0c3f7e-2b1d-4e6f-8a9b-0c1d2e3f4a5b';
    const all = tasks(4).map((t, i) => ({ ...t, api_key_id: i % 2 ? KEY_ID : null }));
    const { gateway, calls } = fakeGateway(all, {
      keys: vi.fn(async () => [{ id: KEY_ID, name: 'CI', prefix: 'ak_7Hq2x', last4: 'P9dZ', revoked: false }]),
    });
    const inner = gateway.list;
    gateway.list = vi.fn(async (email: string, query: LogQuery) => {
      const page = await inner(email, query);
      const keep = (t: LogRow) => query.key === 'all' || (query.key === 'primary' ? !t.api_key_id : t.api_key_id === query.key);
      const rows = all.filter(keep);
      return { rows, total: rows.length, ...(query.key === 'all' ? page : {}) };
    });
    const user = renderPage(gateway);
    await waitFor(() => expect(rows()).toHaveLength(4));
    const filter = screen.getByTestId('key-filter') as HTMLSelectElement;
    await waitFor(() => expect([...filter.options].map((o) => o.textContent)).toEqual(['All keys', 'Primary key', 'CI (ak_7Hq2x…P9dZ)']));

    await user.selectOptions(filter, KEY_ID);
    await waitFor(() => expect(location).toBe(`/dashboard/task-logs?key=${KEY_ID}`));
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(calls.at(-1)).toMatchObject({ key: KEY_ID, page: 1 });
    expect(screen.getByTestId('export-task-logs').hasAttribute('disabled')).toBe(true);
    await user.click(screen.getByRole('button', { name: `Details of ${all[1].id}` }));
    expect((await screen.findByTestId('task-detail-key', {}, { timeout: 5_000 })).textContent).toBe('Made with: CI (ak_7Hq2x…P9dZ)');
    // closed with its Close button like the other detail tests (Escape needs the focus inside, which a loaded machine may not have moved yet)
    await user.click(within(screen.getByTestId('task-detail')).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByTestId('task-detail')).toBeNull(), { timeout: 5_000 });

    await user.selectOptions(screen.getByTestId('key-filter'), 'primary');
    await waitFor(() => expect(location).toBe('/dashboard/task-logs?key=primary'));
    await waitFor(() => expect(rows().map((r) => cellsOf(r)[0])).toEqual([all[0].id, all[2].id]));
  });

  it('keeps All keys and Primary key when the named keys cannot be read', async () => {
    renderPage(fakeGateway(tasks(1), { keys: vi.fn(async () => Promise.reject(new Error('no session'))) }).gateway);
    await waitFor(() => expect(rows()).toHaveLength(1));
    const filter = screen.getByTestId('key-filter') as HTMLSelectElement;
    expect([...filter.options].map((o) => o.textContent)).toEqual(['All keys', 'Primary key']);
  });

  it('exports the current view as CSV, and says when the export cannot start', async () => {
    const { gateway } = fakeGateway(tasks(3));
    const user = renderPage(gateway, '/dashboard/task-logs?status=failed&type=flux');
    await user.click(screen.getByTestId('export-task-logs'));
    expect(gateway.exportCsv).toHaveBeenCalledWith({ status: 'failed', type: 'flux', taskId: '', page: 1, pageSize: 20, key: 'all' });
    gateway.exportCsv = vi.fn(async () => Promise.reject(new Error('x')));
    cleanup();
    const again = renderPage(gateway);
    await again.click(screen.getByTestId('export-task-logs'));
    expect((await screen.findByText('The export could not be started. Please try again.')).getAttribute('role')).toBe('alert');
  });

  it('says the log could not be loaded, and Retry loads it', async () => {
    let fail = true;
    const { gateway } = fakeGateway(tasks(2), {});
    const inner = gateway.list;
    gateway.list = vi.fn((email: string, query: LogQuery) => (fail ? Promise.reject(new Error('offline')) : inner(email, query)));
    const user = renderPage(gateway);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The task log could not be loaded.');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(rows()).toHaveLength(2));
  });
});

describe('Cancel on an active task', () => {
  it('asks in a dialog, keeps the task on Keep running, and on Yes cancels it and shows it failed with its refund', async () => {
    const active: LogRow = { ...tasks(1)[0], status: 'processing', percentage: 30, refund: 0, result: null };
    const all = [active, ...tasks(3).slice(1)];
    const { gateway } = fakeGateway(all, {
      cancel: vi.fn(async () => {
        all[0] = { ...active, status: 'failed', refund: 4, result: { message: 'Cancelled', code: 'cancelled', cancelled: true } };
      }),
    });
    const user = renderPage(gateway);
    await waitFor(() => expect(rows()).toHaveLength(3));
    // only the active row offers it
    expect(screen.getAllByRole('button', { name: /^Cancel / })).toHaveLength(1);
    await user.click(screen.getByRole('button', { name: `Cancel ${active.id}` }));
    const dialog = await screen.findByRole('alertdialog');
    await user.click(within(dialog).getByRole('button', { name: 'Keep running' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(gateway.cancel).not.toHaveBeenCalled();

    await user.click(screen.getByRole('button', { name: `Cancel ${active.id}` }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Yes, cancel' }));
    expect(gateway.cancel).toHaveBeenCalledWith(active.id);
    await waitFor(() => expect(within(rows()[0]).getByText('failed')).toBeTruthy());
    expect(within(rows()[0]).getByTestId('refund').textContent).toBe('+4');
    expect(screen.queryAllByRole('button', { name: /^Cancel / })).toHaveLength(0);
  });
});
