// @vitest-environment jsdom
// The Cancel action on an active task (POST /cancel through each tool's gateway): a confirmation
// step reachable by keyboard, Escape keeps the task, and the task then shows Task Failed / Cancelled.
import { act, cleanup, screen, waitFor } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChakraProvider } from '@chakra-ui/react';
import { MemoryRouter } from 'react-router-dom';
import { system } from '@aim/shared-kit/theme';
import { AiPhotosTool } from '../src/features/ai-photos/ai-photos-tool.tsx';
import { FaceswapTool } from '../src/features/faceswap/faceswap-tool.tsx';
import { MidjourneyTool } from '../src/features/midjourney/midjourney-tool.tsx';
import { fakeAiPhotosGateway, makeAiPhotoTask } from './support/fake-ai-photos-gateway.ts';
import { fakeFaceswapGateway, makeFaceswapTask } from './support/fake-faceswap-gateway.ts';
import { fakeGateway, makeTask } from './support/fake-gateway.ts';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

const CANCELLED = { status: 'failed', result: { message: 'Cancelled', code: 'cancelled', cancelled: true }, refund: 4 };

function renderAt(url: string, tool: ReactNode) {
  render(
    <ChakraProvider value={system}>
      <MemoryRouter initialEntries={[url]}>{tool}</MemoryRouter>
    </ChakraProvider>,
  );
  return userEvent.setup();
}

describe('Cancel on an active Midjourney task', () => {
  it('asks first, keeps the task on Escape, cancels on Yes by keyboard, then shows Task Failed / Cancelled', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'run', status: 'processing', percentage: 20, image_url: null, image_urls: null }), archived: false }]);
    const user = renderAt(
      '/dashboard/tools/midjourney?taskId=run',
      <MidjourneyTool gateway={fake.gateway} mode="embedded" notifyError={vi.fn()} seedDelayMs={0} />,
    );
    const open = await screen.findByRole('button', { name: 'Cancel task' });
    open.focus();
    await user.keyboard('{Enter}');
    expect(screen.getByText('Stop this task? Its credits are refunded.')).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Yes, cancel' }));
    await user.keyboard('{Escape}');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel task' })));
    expect(fake.gateway.cancel).not.toHaveBeenCalled();

    await user.keyboard('{Enter}');
    await user.keyboard('{Enter}');
    await waitFor(() => expect(fake.gateway.cancel).toHaveBeenCalledWith('run'));
    act(() => fake.update('run', CANCELLED));
    expect(await screen.findByTestId('task-failed')).toBeTruthy();
    expect(screen.getByTestId('task-failed-message').textContent).toBe('Cancelled');
    expect(screen.queryByRole('button', { name: 'Cancel task' })).toBeNull();
  });

  it('offers no Cancel on a finished task, and comes back when the server refuses', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'done' }), archived: false }]);
    renderAt('/dashboard/tools/midjourney?taskId=done', <MidjourneyTool gateway={fake.gateway} mode="embedded" notifyError={vi.fn()} seedDelayMs={0} />);
    await screen.findByTestId('task-view');
    expect(screen.queryByRole('button', { name: 'Cancel task' })).toBeNull();

    cleanup();
    const racing = fakeGateway([{ task: makeTask({ id: 'late', status: 'processing', percentage: 90, image_url: null, image_urls: null }), archived: false }]);
    vi.mocked(racing.gateway.cancel).mockRejectedValueOnce(new Error('The task has already finished and cannot be cancelled'));
    const user = renderAt(
      '/dashboard/tools/midjourney?taskId=late',
      <MidjourneyTool gateway={racing.gateway} mode="embedded" notifyError={vi.fn()} seedDelayMs={0} />,
    );
    await user.click(await screen.findByRole('button', { name: 'Cancel task' }));
    await user.click(screen.getByRole('button', { name: 'Yes, cancel' }));
    expect(await screen.findByRole('button', { name: 'Cancel task' })).toBeTruthy();
  });
});

describe('Cancel on an active Faceswap task', () => {
  it('cancels the running swap and shows Task Failed / Cancelled', async () => {
    const fake = fakeFaceswapGateway([{ task: makeFaceswapTask({ id: 'swap', status: 'running', percentage: 10, image_url: null }), archived: false }]);
    const user = renderAt('/dashboard/tools/faceswap?taskId=swap', <FaceswapTool gateway={fake.gateway} notifyError={vi.fn()} />);
    await user.click(await screen.findByRole('button', { name: 'Cancel task' }));
    await user.click(screen.getByRole('button', { name: 'Yes, cancel' }));
    expect(fake.gateway.cancel).toHaveBeenCalledWith('swap');
    act(() => fake.update('swap', CANCELLED));
    expect(await screen.findByText('Cancelled')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Cancel task' })).toBeNull();
  });
});

describe('Cancel on an active AI Photos task', () => {
  it('cancels the running upload check', async () => {
    const fake = fakeAiPhotosGateway([makeAiPhotoTask({ id: 'up-run', status: 'processing', percentage: 30 })]);
    const user = renderAt('/dashboard/tools/ai-photos?taskId=up-run', <AiPhotosTool gateway={fake.gateway} notifyError={vi.fn()} random={() => 0.25} />);
    await user.click(await screen.findByRole('button', { name: 'Cancel task' }));
    await user.click(screen.getByRole('button', { name: 'Yes, cancel' }));
    expect(fake.gateway.cancel).toHaveBeenCalledWith('up-run');
  });
});
