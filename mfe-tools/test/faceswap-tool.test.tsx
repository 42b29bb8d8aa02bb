// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChakraProvider } from '@chakra-ui/react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { ApiError } from '@aim/shared-kit/api';
import { FACESWAP_MAX_BYTES } from '@aim/shared-kit/domain';
import { system } from '@aim/shared-kit/theme';
import { FaceswapTool } from '../src/features/faceswap/faceswap-tool.tsx';
import type { FaceswapGateway } from '../src/features/faceswap/gateway.ts';
import { ERROR_FETCHING_TASK } from '../src/features/tasks/task-rules.ts';
import { fakeFaceswapGateway, makeFaceswapTask } from './support/fake-faceswap-gateway.ts';

let location = '';
function LocationProbe() {
  const loc = useLocation();
  location = loc.pathname + loc.search;
  return null;
}

const TOOL = '/dashboard/tools/faceswap';

function ui(gateway: FaceswapGateway, url: string, notifyError: (m: string) => void) {
  return (
    <ChakraProvider value={system}>
      <MemoryRouter initialEntries={[url]}>
        <FaceswapTool gateway={gateway} notifyError={notifyError} />
        <LocationProbe />
      </MemoryRouter>
    </ChakraProvider>
  );
}

function renderTool(fake: ReturnType<typeof fakeFaceswapGateway>, { url = TOOL, gateway = fake.gateway } = {}) {
  const notifyError = vi.fn();
  const view = render(ui(gateway, url, notifyError));
  return { notifyError, user: userEvent.setup(), rerender: (next: FaceswapGateway) => view.rerender(ui(next, url, notifyError)) };
}

const taskIdInUrl = () => new URLSearchParams(location.split('?')[1] ?? '').get('taskId');
const image = (name: string, type = 'image/png', size?: number) => {
  const file = new File(['x'], name, { type });
  if (size !== undefined) Object.defineProperty(file, 'size', { value: size });
  return file;
};
const input = (role: 'source' | 'target') => screen.getByLabelText(role === 'source' ? 'Source Image' : 'Target Image') as HTMLInputElement;
const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;
const resultView = () => screen.getByTestId('result-box').getAttribute('data-view');

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

let objectUrls = 0;
beforeEach(() => {
  objectUrls = 0;
  URL.createObjectURL = vi.fn(() => `blob:preview-${++objectUrls}`);
  URL.revokeObjectURL = vi.fn();
});
afterEach(cleanup);

async function chooseBoth(user: ReturnType<typeof userEvent.setup>) {
  await user.upload(input('source'), image('me.png'));
  await user.upload(input('target'), image('poster.jpg', 'image/jpeg'));
  await waitFor(() => expect(button('Generate').disabled).toBe(false));
}

describe('the Faceswap screen', () => {
  it('starts with two empty upload boxes and the Generate button in the Result box, disabled', () => {
    renderTool(fakeFaceswapGateway());
    expect(screen.getByRole('heading', { level: 1, name: 'Faceswap' })).toBeTruthy();
    expect(input('source').type).toBe('file');
    expect(input('source').accept).toBe('image/jpeg,image/png,image/gif,image/webp');
    expect(input('target').type).toBe('file');
    expect(within(screen.getByTestId('result-box')).getByRole('button', { name: 'Generate' })).toBeTruthy();
    expect(button('Generate').disabled).toBe(true);
    expect(button('Clear All Data').disabled).toBe(true);
    expect(button('Download Result').disabled).toBe(true);
  });

  it('uploads each chosen picture and previews it; Generate is enabled only with both', async () => {
    const fake = fakeFaceswapGateway();
    const { user } = renderTool(fake);
    const me = image('me.png');
    await user.upload(input('source'), me);
    expect(fake.gateway.upload).toHaveBeenCalledWith(me);
    expect((await screen.findByTestId('source-preview')).getAttribute('src')).toBe('blob:preview-1');
    expect(screen.getByRole('img', { name: 'Source Image preview' })).toBeTruthy();
    await waitFor(() => expect(screen.queryByTestId('source-uploading')).toBeNull());
    expect(button('Generate').disabled).toBe(true);

    await user.upload(input('target'), image('poster.jpg', 'image/jpeg'));
    await waitFor(() => expect(button('Generate').disabled).toBe(false));
    expect(screen.getByTestId('target-preview').getAttribute('src')).toBe('blob:preview-2');
  });

  it('Generate sends both URLs, puts the task id in the query string, then shows the spinner, the progress and the picture', async () => {
    const fake = fakeFaceswapGateway();
    const { user } = renderTool(fake);
    await chooseBoth(user);
    await user.click(button('Generate'));
    expect(fake.gateway.faceswap).toHaveBeenCalledWith('http://localhost:8080/media/me.png', 'http://localhost:8080/media/poster.jpg', expect.any(String));
    await waitFor(() => expect(taskIdInUrl()).toBe('fs-100'));
    await waitFor(() => expect(fake.watchers.has('fs-100')).toBe(true));
    expect(screen.getByTestId('result-spinner')).toBeTruthy();
    expect(screen.getByTestId('task-status').textContent).toBe('Queued');
    // The boxes wait while the swap runs.
    expect(input('source').disabled).toBe(true);

    act(() => fake.update('fs-100', { status: 'running', percentage: 40 }));
    await waitFor(() => expect(screen.getByTestId('task-percentage').textContent).toBe('40%'));
    expect(screen.getByTestId('task-status').textContent).toBe('Running');
    // A late, older row does not move progress back.
    act(() => fake.watchers.get('fs-100')!({ ...fake.rows.get('fs-100')!.task, status: 'processing', percentage: 10 }));
    await waitFor(() => expect(screen.getByTestId('task-status').textContent).toBe('Processing'));
    expect(screen.getByTestId('task-percentage').textContent).toBe('40%');
    expect(button('Download Result').disabled).toBe(true);

    act(() => fake.update('fs-100', { status: 'finished', percentage: 100, image_url: 'http://localhost:8080/media/swapped.png' }));
    const result = await screen.findByTestId('result-image');
    expect(result.getAttribute('src')).toBe('http://localhost:8080/media/swapped.png');
    expect(screen.queryByTestId('result-spinner')).toBeNull();
    expect(fake.unsubscribed).toEqual(['fs-100']);
    expect(button('Download Result').disabled).toBe(false);
    expect(input('source').disabled).toBe(false);
  });

  it('shows the picture as soon as the row has an image_url, even before the status is terminal', async () => {
    const fake = fakeFaceswapGateway([{ task: makeFaceswapTask({ id: 'early', status: 'running', percentage: 95 }), archived: false }]);
    renderTool(fake, { url: `${TOOL}?taskId=early` });
    expect((await screen.findByTestId('result-image')).getAttribute('src')).toBe('http://localhost:8080/media/early.png');
  });

  it('shows a spinner in the Result box while an upload runs', async () => {
    const fake = fakeFaceswapGateway();
    const pending = deferred<string>();
    vi.mocked(fake.gateway.upload).mockImplementationOnce(() => pending.promise);
    const { user } = renderTool(fake);
    await user.upload(input('source'), image('me.png'));
    expect(screen.getByTestId('result-spinner').getAttribute('data-reason')).toBe('uploading');
    expect(screen.getByText('Uploading images...')).toBeTruthy();
    expect(screen.getByTestId('source-uploading')).toBeTruthy();
    await act(async () => pending.resolve('http://localhost:8080/media/me.png'));
    await waitFor(() => expect(resultView()).toBe('generate'));
  });

  it.each([
    ['source', 'Source Image is too large. Please upload an image under 3MB.'],
    ['target', 'Target Image is too large. Please upload an image under 3MB.'],
  ] as const)('refuses a %s image over 3 MB with the spec message and sends nothing', async (role, message) => {
    const fake = fakeFaceswapGateway();
    const { user } = renderTool(fake);
    await user.upload(input(role), image('big.png', 'image/png', FACESWAP_MAX_BYTES + 1));
    expect(screen.getByTestId(`${role}-error`).textContent).toBe(message);
    expect(input(role).getAttribute('aria-invalid')).toBe('true');
    expect(fake.gateway.upload).not.toHaveBeenCalled();
    // Exactly 3 MB is allowed, and clears the message.
    await user.upload(input(role), image('ok.png', 'image/png', FACESWAP_MAX_BYTES));
    expect(fake.gateway.upload).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.queryByTestId(`${role}-error`)).toBeNull());
  });

  it('refuses a type other than jpeg, png, gif or webp before sending', async () => {
    const fake = fakeFaceswapGateway();
    renderTool(fake);
    const user = userEvent.setup({ applyAccept: false });
    await user.upload(input('source'), image('face.svg', 'image/svg+xml'));
    expect(screen.getByTestId('source-error').textContent).toBe('Only jpeg, png, gif and webp images can be uploaded.');
    expect(fake.gateway.upload).not.toHaveBeenCalled();
  });

  it("says 'Error uploading images!' when an upload fails, and keeps the other image", async () => {
    const fake = fakeFaceswapGateway();
    const { user, notifyError } = renderTool(fake);
    await user.upload(input('source'), image('me.png'));
    await screen.findByTestId('source-preview');
    vi.mocked(fake.gateway.upload).mockRejectedValueOnce(new ApiError('The picture could not be read.', 400));
    await user.upload(input('target'), image('broken.png'));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error uploading images!'));
    expect(screen.getByTestId('target-error').textContent).toBe('The picture could not be read.');
    expect(screen.queryByTestId('target-preview')).toBeNull();
    expect(screen.getByTestId('source-preview').getAttribute('src')).toBe('blob:preview-1');
    expect(button('Generate').disabled).toBe(true);
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:preview-2');
  });

  it('a failed replacement puts back the picture the box held before', async () => {
    const fake = fakeFaceswapGateway();
    const { user, notifyError } = renderTool(fake);
    await chooseBoth(user);
    vi.mocked(fake.gateway.upload).mockRejectedValueOnce(new TypeError('Failed to fetch'));
    await user.upload(input('source'), image('other.png'));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error uploading images!'));
    expect(screen.getByTestId('source-preview').getAttribute('src')).toBe('blob:preview-1');
    // A network failure has no server reason to show under the box.
    expect(screen.queryByTestId('source-error')).toBeNull();
    await user.click(button('Generate'));
    expect(fake.gateway.faceswap).toHaveBeenCalledWith('http://localhost:8080/media/me.png', 'http://localhost:8080/media/poster.jpg', expect.any(String));
  });

  it('takes a picture dropped on a box', async () => {
    const fake = fakeFaceswapGateway();
    renderTool(fake);
    const file = image('dropped.webp', 'image/webp');
    fireEvent.drop(input('target').closest('label')!, { dataTransfer: { files: [file] } });
    await waitFor(() => expect(fake.gateway.upload).toHaveBeenCalledWith(file));
    expect(await screen.findByTestId('target-preview')).toBeTruthy();
  });

  it('Download Result fetches the picture and saves it as <taskId>.png', async () => {
    const fake = fakeFaceswapGateway([{ task: makeFaceswapTask({ id: 'dl' }), archived: false }]);
    const saved: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    vi.mocked(fake.gateway.fetchImage).mockResolvedValueOnce(new Blob(['jpg'], { type: 'image/jpeg' }));
    const { user } = renderTool(fake, { url: `${TOOL}?taskId=dl` });
    await screen.findByTestId('result-image');
    await user.click(button('Download Result'));
    await waitFor(() => expect(saved).toEqual(['dl.png']));
    expect(fake.gateway.fetchImage).toHaveBeenCalledWith('http://localhost:8080/media/dl.png');
    click.mockRestore();
  });

  it("toasts 'Error downloading image:' when the picture cannot be fetched", async () => {
    const fake = fakeFaceswapGateway([{ task: makeFaceswapTask({ id: 'dl' }), archived: false }]);
    vi.mocked(fake.gateway.fetchImage).mockRejectedValueOnce(new Error('GET: HTTP 404'));
    const { user, notifyError } = renderTool(fake, { url: `${TOOL}?taskId=dl` });
    await screen.findByTestId('result-image');
    await user.click(button('Download Result'));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error downloading image:'));
  });

  it('can be used from the keyboard: Tab reaches both boxes, then Generate, which Enter presses', async () => {
    const fake = fakeFaceswapGateway();
    const { user } = renderTool(fake);
    await chooseBoth(user);
    (document.activeElement as HTMLElement | null)?.blur();
    await user.tab();
    expect(document.activeElement).toBe(input('source'));
    await user.tab();
    expect(document.activeElement).toBe(input('target'));
    await user.tab();
    expect(document.activeElement).toBe(button('Generate'));
    await user.keyboard('{Enter}');
    await waitFor(() => expect(fake.gateway.faceswap).toHaveBeenCalledTimes(1));
    // the running task's Cancel comes next, then Clear All Data
    await screen.findByRole('button', { name: 'Cancel task' });
    await user.tab();
    expect(document.activeElement).toBe(button('Cancel task'));
    await user.tab();
    expect(document.activeElement).toBe(button('Clear All Data'));
  });
});

describe('restoring ?taskId=', () => {
  it('shows a finished task with the pictures it was made from, without subscribing', async () => {
    const fake = fakeFaceswapGateway([{ task: makeFaceswapTask({ id: 'done' }), archived: false }]);
    renderTool(fake, { url: `${TOOL}?taskId=done` });
    expect((await screen.findByTestId('result-image')).getAttribute('src')).toBe('http://localhost:8080/media/done.png');
    expect(fake.gateway.readTask).toHaveBeenCalledWith('done');
    expect((await screen.findByTestId('source-preview')).getAttribute('src')).toBe('http://localhost:8080/media/swap.png');
    expect(screen.getByTestId('target-preview').getAttribute('src')).toBe('http://localhost:8080/media/target.png');
    expect(fake.gateway.watchTask).not.toHaveBeenCalled();
  });

  it('waits for the API key: a spinner until it is known, then the task', async () => {
    const fake = fakeFaceswapGateway([{ task: makeFaceswapTask({ id: 'k' }), archived: false }]);
    const { rerender } = renderTool(fake, { url: `${TOOL}?taskId=k`, gateway: { ...fake.gateway, ready: false } });
    expect(screen.getByTestId('result-spinner').getAttribute('data-reason')).toBe('loading');
    await new Promise((r) => setTimeout(r, 20));
    expect(fake.gateway.readTask).not.toHaveBeenCalled();
    rerender(fake.gateway);
    expect(await screen.findByTestId('result-image')).toBeTruthy();
    expect(fake.gateway.readTask).toHaveBeenCalledWith('k');
  });

  it('follows a running task live until it is terminal', async () => {
    const fake = fakeFaceswapGateway([{ task: makeFaceswapTask({ id: 'run', status: 'running', percentage: 10, image_url: null }), archived: false }]);
    renderTool(fake, { url: `${TOOL}?taskId=run` });
    await waitFor(() => expect(fake.watchers.has('run')).toBe(true));
    expect(screen.getByTestId('task-percentage').textContent).toBe('10%');
    act(() => fake.update('run', { percentage: 70 }));
    await waitFor(() => expect(screen.getByTestId('task-percentage').textContent).toBe('70%'));
    act(() => fake.update('run', { status: 'finished', percentage: 100, image_url: 'http://localhost:8080/media/run.png' }));
    expect(await screen.findByTestId('result-image')).toBeTruthy();
    expect(fake.unsubscribed).toEqual(['run']);
  });

  it("shows a failed task as 'Task Failed' with its message", async () => {
    const failed = makeFaceswapTask({
      id: 'bad',
      status: 'failed',
      percentage: 20,
      image_url: null,
      result: { message: 'No face was found in the source image.' },
      refund: 2,
    });
    const fake = fakeFaceswapGateway([{ task: failed, archived: false }]);
    renderTool(fake, { url: `${TOOL}?taskId=bad` });
    const alert = await screen.findByTestId('task-failed');
    expect(within(alert).getByText('Task Failed')).toBeTruthy();
    expect(within(alert).getByTestId('task-failed-message').textContent).toBe('No face was found in the source image.');
    expect(within(alert).getByTestId('task-refund').textContent).toBe('2 credits were refunded.');
    expect(button('Download Result').disabled).toBe(true);
  });

  it("refuses a task of another type with 'This task is not a Faceswap task!' and clears the task id", async () => {
    const fake = fakeFaceswapGateway([{ task: makeFaceswapTask({ id: 'mj', type: 'imagine' }), archived: false }]);
    const { notifyError } = renderTool(fake, { url: `${TOOL}?taskId=mj` });
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('This task is not a Faceswap task!'));
    await waitFor(() => expect(taskIdInUrl()).toBeNull());
    expect(resultView()).toBe('generate');
    expect(screen.queryByTestId('source-preview')).toBeNull();
  });

  it("toasts 'Error fetching task!' when the task cannot be read", async () => {
    const fake = fakeFaceswapGateway();
    const { notifyError } = renderTool(fake, { url: `${TOOL}?taskId=missing` });
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith(ERROR_FETCHING_TASK));
    expect(screen.getByTestId('result-error')).toBeTruthy();
    expect(button('Clear All Data').disabled).toBe(false);
  });

  it('a new picture after a finished swap starts a new pair and keeps the other picture', async () => {
    const fake = fakeFaceswapGateway([{ task: makeFaceswapTask({ id: 'done' }), archived: false }]);
    const { user } = renderTool(fake, { url: `${TOOL}?taskId=done` });
    await screen.findByTestId('result-image');
    await user.upload(input('target'), image('beach.png'));
    await waitFor(() => expect(taskIdInUrl()).toBeNull());
    await waitFor(() => expect(button('Generate').disabled).toBe(false));
    expect(screen.getByTestId('source-preview').getAttribute('src')).toBe('http://localhost:8080/media/swap.png');
    await user.click(button('Generate'));
    expect(fake.gateway.faceswap).toHaveBeenCalledWith('http://localhost:8080/media/swap.png', 'http://localhost:8080/media/beach.png', expect.any(String));
    await waitFor(() => expect(taskIdInUrl()).toBe('fs-100'));
  });
});

describe('Clear All Data', () => {
  it('resets both images, the task and the task id, and drops the live subscription', async () => {
    const fake = fakeFaceswapGateway();
    const { user } = renderTool(fake, { url: `${TOOL}?tab=x` });
    await chooseBoth(user);
    await user.click(button('Generate'));
    await waitFor(() => expect(fake.watchers.has('fs-100')).toBe(true));
    act(() => fake.update('fs-100', { status: 'running', percentage: 30 }));
    await waitFor(() => expect(screen.getByTestId('task-percentage').textContent).toBe('30%'));

    await user.click(button('Clear All Data'));
    expect(fake.unsubscribed).toEqual(['fs-100']);
    await waitFor(() => expect(taskIdInUrl()).toBeNull());
    // Only the task id leaves the query string.
    expect(location).toBe(`${TOOL}?tab=x`);
    expect(resultView()).toBe('generate');
    expect(screen.queryByTestId('source-preview')).toBeNull();
    expect(screen.queryByTestId('target-preview')).toBeNull();
    expect(button('Generate').disabled).toBe(true);
    expect(button('Clear All Data').disabled).toBe(true);
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:preview-1');
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:preview-2');
    // Updates after the reset change nothing.
    act(() => fake.update('fs-100', { status: 'finished', image_url: 'http://localhost:8080/media/late.png' }));
    expect(screen.queryByTestId('result-image')).toBeNull();
  });

  it('forgets a Generate and an upload that answer after it', async () => {
    const fake = fakeFaceswapGateway();
    const { user } = renderTool(fake);
    await chooseBoth(user);
    const swap = deferred<string>();
    vi.mocked(fake.gateway.faceswap).mockImplementationOnce(() => swap.promise);
    await user.click(button('Generate'));
    await user.click(button('Clear All Data'));
    await act(async () => swap.resolve('fs-late'));
    expect(taskIdInUrl()).toBeNull();
    expect(resultView()).toBe('generate');

    const upload = deferred<string>();
    vi.mocked(fake.gateway.upload).mockImplementationOnce(() => upload.promise);
    await user.upload(input('source'), image('slow.png'));
    await user.click(button('Clear All Data'));
    await act(async () => upload.resolve('http://localhost:8080/media/slow.png'));
    expect(screen.queryByTestId('source-preview')).toBeNull();
    expect(resultView()).toBe('generate');
  });
});
