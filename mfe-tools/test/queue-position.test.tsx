// @vitest-environment jsdom
// A queued task's place in line beside its progress: 'In queue (n ahead)' while it waits (POST
// /fetch's queue_position, read every few seconds), its status once it runs.
import { cleanup, screen, waitFor } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChakraProvider } from '@chakra-ui/react';
import { MemoryRouter } from 'react-router-dom';
import type { TypedApi } from '@aim/shared-kit/api';
import { system } from '@aim/shared-kit/theme';
import { TaskProgressBar } from '../src/components/task-progress-bar.tsx';
import { MidjourneyTool } from '../src/features/midjourney/midjourney-tool.tsx';
import { isQueuedStatus, queueLabel, type QueuePositionReader, readQueuePosition } from '../src/features/tasks/queue-position.ts';
import { QueuePositionProvider } from '../src/features/tasks/use-queue-position.tsx';
import { fakeGateway, makeTask } from './support/fake-gateway.ts';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const wrap = (read: QueuePositionReader, children: ReactNode) => (
  <ChakraProvider value={system}>
    <QueuePositionProvider read={read}>{children}</QueuePositionProvider>
  </ChakraProvider>
);

describe('queue position rules', () => {
  it.each([
    ['pending', true],
    ['queued', true],
    ['staged', false],
    ['processing', false],
    ['running', false],
    ['finished', false],
    ['failed', false],
  ])('%s waits in the queue: %s', (status, queued) => {
    expect(isQueuedStatus(status)).toBe(queued);
  });

  it.each([
    [0, 'In queue (0 ahead)'],
    [1, 'In queue (1 ahead)'],
    [12, 'In queue (12 ahead)'],
  ])('%i ahead reads %s', (ahead, label) => {
    expect(queueLabel(ahead)).toBe(label);
  });

  it('reads queue_position and estimated_start_at from POST /fetch without a toast; null once the task runs', async () => {
    const post = vi
      .fn()
      .mockResolvedValueOnce({ task_id: 't', status: 'pending', queue_position: 4, estimated_start_at: '2026-11-28T10:00:00.000Z' })
      .mockResolvedValueOnce({ task_id: 't', status: 'processing' });
    const api = { post } as unknown as TypedApi;
    const signal = new AbortController().signal;
    expect(await readQueuePosition(api, 't', signal)).toEqual({ ahead: 4, estimatedStartAt: '2026-11-28T10:00:00.000Z' });
    expect(post).toHaveBeenCalledWith('/fetch', { body: { task_id: 't' }, toastOnError: false, signal });
    expect(await readQueuePosition(api, 't', signal)).toBeNull();
  });
});

describe('TaskProgressBar', () => {
  it('shows "In queue (n ahead)" for a queued task, then its status once it runs', async () => {
    const read = vi.fn<QueuePositionReader>().mockResolvedValue({ ahead: 3, estimatedStartAt: null });
    const view = render(wrap(read, <TaskProgressBar status="pending" percentage={0} taskId="t1" />));
    await waitFor(() => expect(screen.getByTestId('task-status').textContent).toBe('In queue (3 ahead)'));
    expect(read).toHaveBeenCalledWith('t1', expect.any(AbortSignal));

    view.rerender(wrap(read, <TaskProgressBar status="processing" percentage={20} taskId="t1" />));
    expect(screen.getByTestId('task-status').textContent).toBe('Processing');
    expect(screen.getByTestId('task-percentage').textContent).toBe('20%');
  });

  it('reads nothing for a running task, and shows the status while the position is unknown', async () => {
    const read = vi.fn<QueuePositionReader>().mockResolvedValue(null);
    const view = render(wrap(read, <TaskProgressBar status="processing" percentage={50} taskId="t2" />));
    expect(screen.getByTestId('task-status').textContent).toBe('Processing');
    expect(read).not.toHaveBeenCalled();
    view.rerender(wrap(read, <TaskProgressBar status="pending" percentage={0} taskId="t2" />));
    await waitFor(() => expect(read).toHaveBeenCalled());
    expect(screen.getByTestId('task-status').textContent).toBe('Pending');
  });
});

describe('the Midjourney tool', () => {
  it('shows the place in line of the queued task it follows', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'waiting', status: 'pending', percentage: 0, image_url: null, image_urls: null }), archived: false }]);
    const read = vi.fn<QueuePositionReader>().mockResolvedValue({ ahead: 2, estimatedStartAt: null });
    render(
      wrap(
        read,
        <MemoryRouter initialEntries={['/dashboard/tools/midjourney?taskId=waiting']}>
          <MidjourneyTool gateway={fake.gateway} mode="embedded" notifyError={vi.fn()} seedDelayMs={0} />
        </MemoryRouter>,
      ),
    );
    await waitFor(() => expect(screen.getByTestId('task-status').textContent).toBe('In queue (2 ahead)'));
    expect(read).toHaveBeenCalledWith('waiting', expect.any(AbortSignal));
  });
});
