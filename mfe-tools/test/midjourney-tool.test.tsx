// @vitest-environment jsdom
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChakraProvider } from '@chakra-ui/react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { system } from '@aim/shared-kit/theme';
import { MidjourneyTool } from '../src/features/midjourney/midjourney-tool.tsx';
import { EMPTY_PROMPT_MESSAGE, NOT_MIDJOURNEY_TASK } from '../src/features/midjourney/task-model.ts';
import { INSECURE_UPLOAD_URL_MESSAGE } from '../src/features/midjourney/prompt-rules.ts';
import { ERROR_FETCHING_TASK, UNSUPPORTED_IMAGE_MESSAGE } from '../src/features/tasks/task-rules.ts';
import { fakeGateway, makeTask } from './support/fake-gateway.ts';

// The whole screen renders in jsdom (with a menu per grid cell); on a shared 2-core machine a case
// can pass vitest's 5 s default without anything being wrong.
vi.setConfig({ testTimeout: 20_000 });

let location = '';
function LocationProbe() {
  const loc = useLocation();
  location = loc.pathname + loc.search;
  return null;
}

function renderTool(fake: ReturnType<typeof fakeGateway>, { url = '/dashboard/tools/midjourney', mode = 'embedded' } = {}) {
  const notifyError = vi.fn();
  render(
    <ChakraProvider value={system}>
      <MemoryRouter initialEntries={[url]}>
        <MidjourneyTool gateway={fake.gateway} mode={mode} notifyError={notifyError} seedDelayMs={0} />
        <LocationProbe />
      </MemoryRouter>
    </ChakraProvider>,
  );
  return { notifyError, user: userEvent.setup() };
}

const taskIdInUrl = () => new URLSearchParams(location.split('?')[1] ?? '').get('taskId');

afterEach(cleanup);

describe('the prompt box', () => {
  it('refuses an empty prompt with a message and sends nothing', async () => {
    const fake = fakeGateway();
    const { user } = renderTool(fake);
    await user.click(screen.getByRole('button', { name: 'Imagine' }));
    expect(await screen.findByText(EMPTY_PROMPT_MESSAGE)).toBeTruthy();
    await user.type(screen.getByRole('textbox', { name: 'Prompt' }), '   {Enter}');
    expect(fake.gateway.imagine).not.toHaveBeenCalled();
  });

  it('adds a newline on Shift+Enter and submits on Enter', async () => {
    const fake = fakeGateway();
    const { user } = renderTool(fake);
    const box = screen.getByRole('textbox', { name: 'Prompt' }) as HTMLTextAreaElement;
    await user.type(box, 'a red fox{Shift>}{Enter}{/Shift}in snow');
    expect(box.value).toBe('a red fox\nin snow');
    expect(fake.gateway.imagine).not.toHaveBeenCalled();
    await user.type(box, '{Enter}');
    await waitFor(() => expect(fake.gateway.imagine).toHaveBeenCalledWith('a red fox\nin snow', expect.any(String)));
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
  });

  it('fills the prompt from an example chip', async () => {
    const fake = fakeGateway();
    const { user } = renderTool(fake);
    await user.click(screen.getByRole('button', { name: 'Cyberpunk city at sunset' }));
    expect((screen.getByRole('textbox', { name: 'Prompt' }) as HTMLTextAreaElement).value).toBe('Cyberpunk city at sunset');
  });
});

describe('a task from Imagine to its grid', () => {
  it('shows live progress, then the 4-image grid, and stops listening once terminal', async () => {
    const fake = fakeGateway();
    const { user } = renderTool(fake);
    expect(screen.getByTestId('result-empty')).toBeTruthy();
    await user.type(screen.getByRole('textbox', { name: 'Prompt' }), 'a lighthouse{Enter}');
    await waitFor(() => expect(fake.watchers.has('task-100')).toBe(true));
    expect(await screen.findByTestId('task-progress')).toBeTruthy();
    expect(screen.getByTestId('task-status').textContent).toBe('Queued');

    act(() => fake.update('task-100', { status: 'running', percentage: 45 }));
    await waitFor(() => expect(screen.getByTestId('task-percentage').textContent).toBe('45%'));
    expect(screen.getByTestId('task-status').textContent).toBe('Running');
    // An out-of-order older row does not move the bar back.
    act(() => fake.watchers.get('task-100')!({ ...fake.rows.get('task-100')!.task, status: 'processing', percentage: 20 }));
    await waitFor(() => expect(screen.getByTestId('task-status').textContent).toBe('Processing'));
    expect(screen.getByTestId('task-percentage').textContent).toBe('45%');

    act(() => fake.update('task-100', { status: 'finished', percentage: 100, image_urls: ['a', 'b', 'c', 'd'].map((c) => `http://x/${c}.png`) }));
    const grid = await screen.findByTestId('result-grid');
    expect(within(grid).getAllByRole('img')).toHaveLength(4);
    expect(fake.unsubscribed).toEqual(['task-100']);
    for (const name of ['Get Seed', 'Reroll', 'Add to Favs', 'Download']) expect(screen.getByRole('button', { name })).toBeTruthy();
  });

  it('Upscale sends spec §7 {parent_task_id, index, type creative}, the URL follows the new task, and its result is a single image', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'grid-1' }), archived: false }]);
    const { user } = renderTool(fake, { url: '/dashboard/tools/midjourney?taskId=grid-1' });
    await user.click(await screen.findByRole('button', { name: 'Upscale image 2' }));
    expect(fake.gateway.upscale).toHaveBeenCalledWith('grid-1', 2, 'creative', expect.any(String));
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));

    act(() => fake.update('task-100', { status: 'success', percentage: 100, image_url: 'http://x/up.png', image_urls: ['http://x/up.png'] }));
    const single = await screen.findByTestId('result-single');
    expect(within(single).getAllByRole('img')).toHaveLength(1);
    expect(screen.getByTestId('task-view').dataset.taskType).toBe('upscale-creative');
    expect(screen.queryByRole('button', { name: 'Reroll' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Upscale image/ })).toBeNull();
    // The upscaler's result is worked on further (pan, zoom, vary), not upscaled again.
    expect(screen.getByRole('button', { name: 'Pan left' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Upscale (Creative)' })).toBeNull();
  });

  it('an upscaled cell (upscale#N) offers the Midjourney upscalers and the enlargements as new tasks', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'u2', type: 'upscale#2', image_urls: ['http://x/u2.png'] }), archived: false }]);
    const { user } = renderTool(fake, { url: '/dashboard/tools/midjourney?taskId=u2' });
    await user.click(await screen.findByRole('button', { name: 'Upscale (Creative)' }));
    expect(fake.gateway.upscale).toHaveBeenLastCalledWith('u2', 1, 'creative', expect.any(String));
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
    act(() => fake.update('task-100', { status: 'finished', percentage: 100, image_url: 'http://x/c.png', image_urls: ['http://x/c.png'] }));
    expect(await screen.findByTestId('result-single')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Upscale (Creative)' })).toBeNull();
  });

  it('variation of image 3 calls /pro/variations with index 3', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'grid-1' }), archived: false }]);
    const { user } = renderTool(fake, { url: '/dashboard?taskId=grid-1' });
    await user.click(await screen.findByRole('button', { name: 'Variation of image 3' }));
    expect(fake.gateway.variation).toHaveBeenCalledWith('grid-1', 3, expect.any(String));
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
    expect(location.startsWith('/dashboard?')).toBe(true);
  });
});

describe('restoring ?taskId=', () => {
  it("shows a failed task as 'Task Failed' with its message and refund", async () => {
    const failed = makeTask({
      id: 'f1',
      status: 'failed',
      percentage: 30,
      image_url: null,
      image_urls: null,
      result: { message: 'Banned prompt: gore' },
      refund: 8,
    });
    const fake = fakeGateway([{ task: failed, archived: false }]);
    renderTool(fake, { url: '/dashboard/tools/midjourney?taskId=f1' });
    const alert = await screen.findByTestId('task-failed');
    expect(within(alert).getByText('Task Failed')).toBeTruthy();
    expect(within(alert).getByText('Banned prompt: gore')).toBeTruthy();
    expect(within(alert).getByTestId('task-refund').textContent).toBe('8 credits were refunded.');
    expect(fake.gateway.watchTask).not.toHaveBeenCalled();
  });

  it("refuses a task of another family with 'This task is not a Midjourney task!' and drops the id", async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'fs', type: 'faceswap' }), archived: false }]);
    const { notifyError } = renderTool(fake, { url: '/dashboard/tools/midjourney?taskId=fs' });
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith(NOT_MIDJOURNEY_TASK));
    await waitFor(() => expect(taskIdInUrl()).toBeNull());
    expect(screen.getByTestId('result-empty')).toBeTruthy();
  });

  it("toasts 'Error fetching task!' when the task cannot be read", async () => {
    const fake = fakeGateway();
    const { notifyError } = renderTool(fake, { url: '/dashboard/tools/midjourney?taskId=missing' });
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith(ERROR_FETCHING_TASK));
    expect(screen.getByTestId('result-error')).toBeTruthy();
  });

  it('hides Get Seed and Reroll for an archived task and does not subscribe to it', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'old' }), archived: true }]);
    renderTool(fake, { url: '/dashboard/tools/midjourney?taskId=old' });
    expect(await screen.findByTestId('result-grid')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Get Seed' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Reroll' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Download' })).toBeTruthy();
    expect(fake.gateway.watchTask).not.toHaveBeenCalled();
  });

  it('picks up a change made between the first read and the live subscription', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'r1', status: 'running', percentage: 10, image_urls: null }), archived: false }]);
    // The worker finishes while the channel joins: no event reaches the watcher, the re-read must catch it.
    vi.mocked(fake.gateway.watchTask).mockImplementationOnce((id, _onRow, onLive) => {
      fake.rows.get(id)!.task = makeTask({ id: 'r1' });
      queueMicrotask(onLive);
      return () => fake.unsubscribed.push(id);
    });
    renderTool(fake, { url: '/dashboard/tools/midjourney?taskId=r1' });
    expect(await screen.findByTestId('result-grid')).toBeTruthy();
    expect(fake.unsubscribed).toEqual(['r1']);
  });

  it('drops the subscription when the page leaves an active task', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'a1', status: 'running', percentage: 5 }), archived: false }]);
    renderTool(fake, { url: '/dashboard/tools/midjourney?taskId=a1' });
    await waitFor(() => expect(fake.watchers.has('a1')).toBe(true));
    cleanup();
    expect(fake.unsubscribed).toEqual(['a1']);
  });
});

describe('task actions', () => {
  it('Get Seed asks /pro/seed, then /fetch of the seed task, and shows the seed', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'g' }), archived: false }]);
    const { user } = renderTool(fake, { url: '/dashboard/tools/midjourney?taskId=g' });
    await user.click(await screen.findByRole('button', { name: 'Get Seed' }));
    expect((await screen.findByTestId('task-seed')).textContent).toBe('Seed: 4242');
    expect(fake.gateway.requestSeed).toHaveBeenCalledWith('g', expect.any(String));
    expect(fake.gateway.fetchTask).toHaveBeenCalledWith('seed-task');
  });

  it('Add to Favs becomes Remove from Favs and back', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'g' }), archived: false }]);
    const { user } = renderTool(fake, { url: '/dashboard/tools/midjourney?taskId=g' });
    await user.click(await screen.findByRole('button', { name: 'Add to Favs' }));
    await user.click(await screen.findByRole('button', { name: 'Remove from Favs' }));
    expect(await screen.findByRole('button', { name: 'Add to Favs' })).toBeTruthy();
    expect(fake.gateway.toggleFavorite).toHaveBeenCalledTimes(2);
  });

  it('Reroll creates a task from the current one', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'g' }), archived: false }]);
    const { user } = renderTool(fake, { url: '/dashboard/tools/midjourney?taskId=g' });
    await user.click(await screen.findByRole('button', { name: 'Reroll' }));
    expect(fake.gateway.reroll).toHaveBeenCalledWith('g', expect.any(String));
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
  });

  it('Download fetches the picture and saves it named from the task id', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'dl' }), archived: false }]);
    const saved: string[] = [];
    URL.createObjectURL = vi.fn(() => 'blob:test');
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    const { user } = renderTool(fake, { url: '/dashboard/tools/midjourney?taskId=dl' });
    await user.click(await screen.findByRole('button', { name: 'Download' }));
    await waitFor(() => expect(saved).toEqual(['dl.png']));
    expect(fake.gateway.fetchImage).toHaveBeenCalledWith('http://localhost:8080/media/dl.png');
    click.mockRestore();
  });
});

describe('image upload', () => {
  const png = () => new File(['x'], 'ref.png', { type: 'image/png' });

  it('refuses a type other than jpeg, png, gif or webp', async () => {
    const fake = fakeGateway();
    const { notifyError } = renderTool(fake);
    const user = userEvent.setup({ applyAccept: false });
    await user.upload(screen.getByTestId('upload-input'), new File(['<svg/>'], 'a.svg', { type: 'image/svg+xml' }));
    expect(notifyError).toHaveBeenCalledWith(UNSUPPORTED_IMAGE_MESSAGE);
    expect(fake.gateway.upload).not.toHaveBeenCalled();
  });

  it('shows the http URL in embedded mode and can add it to the prompt', async () => {
    const fake = fakeGateway();
    const { user } = renderTool(fake, { mode: 'embedded' });
    await user.upload(screen.getByTestId('upload-input'), png());
    const dialog = await screen.findByTestId('upload-dialog');
    expect((within(dialog).getByTestId('upload-url') as HTMLInputElement).value).toBe('http://localhost:8080/media/upload-ref.png');
    await user.click(within(dialog).getByRole('button', { name: 'Add to prompt' }));
    expect((screen.getByRole('textbox', { name: 'Prompt' }) as HTMLTextAreaElement).value).toBe('http://localhost:8080/media/upload-ref.png ');
  });

  it('does not show an http URL outside embedded mode', async () => {
    const fake = fakeGateway();
    const { user } = renderTool(fake, { mode: 'production' });
    await user.upload(screen.getByTestId('upload-input'), png());
    const dialog = await screen.findByTestId('upload-dialog');
    expect(within(dialog).getByText(INSECURE_UPLOAD_URL_MESSAGE)).toBeTruthy();
    expect(within(dialog).queryByTestId('upload-url')).toBeNull();
  });
});
