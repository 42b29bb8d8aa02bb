// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChakraProvider } from '@chakra-ui/react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { ApiError } from '@aim/shared-kit/api';
import { system } from '@aim/shared-kit/theme';
import type { AiPhotoTask } from '../src/features/ai-photos/ai-photos-rules.ts';
import { AiPhotosTool, type AiPhotosToolProps } from '../src/features/ai-photos/ai-photos-tool.tsx';
import type { AiPhotosGateway } from '../src/features/ai-photos/gateway.ts';
import { ERROR_FETCHING_TASK } from '../src/features/tasks/task-rules.ts';
import { fakeAiPhotosGateway, makeAiPhotoTask } from './support/fake-ai-photos-gateway.ts';

let location = '';
function LocationProbe() {
  const loc = useLocation();
  location = loc.pathname + loc.search;
  return null;
}

const TOOL = '/dashboard/tools/ai-photos';
type Fake = ReturnType<typeof fakeAiPhotosGateway>;
type Extra = Partial<Pick<AiPhotosToolProps, 'preparePhoto'>>;

function ui(gateway: AiPhotosGateway, url: string, notifyError: (m: string) => void, extra: Extra) {
  return (
    <ChakraProvider value={system}>
      <MemoryRouter initialEntries={[url]}>
        <AiPhotosTool gateway={gateway} notifyError={notifyError} random={() => 0.25} {...extra} />
        <LocationProbe />
      </MemoryRouter>
    </ChakraProvider>
  );
}

function renderTool(fake: Fake, { url = TOOL, gateway = fake.gateway, ...extra }: { url?: string; gateway?: AiPhotosGateway } & Extra = {}) {
  const notifyError = vi.fn();
  const view = render(ui(gateway, url, notifyError, extra));
  return { notifyError, user: userEvent.setup(), rerender: (next: AiPhotosGateway) => view.rerender(ui(next, url, notifyError, extra)) };
}

const taskIdInUrl = () => new URLSearchParams(location.split('?')[1] ?? '').get('taskId');
const photo = (name: string, type = 'image/jpeg') => new File([`bytes of ${name}`], name, { type, lastModified: 1 });
const photos = (n: number, prefix = 'me') => Array.from({ length: n }, (_, i) => photo(`${prefix}-${i + 1}.jpg`));
const base64 = (text: string) => Buffer.from(text).toString('base64');
const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;
const panel = () => screen.getByTestId('wizard-panel');
const currentStep = () => screen.getByTestId('wizard-steps').querySelector('[aria-current="step"]')?.textContent;
const thumbs = () => screen.queryAllByTestId('photo-thumb');
const listItem = (id: string) => screen.getAllByTestId('task-list-item').find((el) => el.dataset.taskId === id)!;

/** The thumbnail of `name` decoded a picture of that size (what the browser's load event reports). */
function decoded(name: string, width: number, height: number) {
  const img = screen.getByRole('img', { name }) as HTMLImageElement;
  Object.defineProperty(img, 'naturalWidth', { value: width, configurable: true });
  Object.defineProperty(img, 'naturalHeight', { value: height, configurable: true });
  fireEvent.load(img);
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function fillPerson(user: ReturnType<typeof userEvent.setup>, { gender = 'Female', ethnicity = 'middle eastern', age = '34' } = {}) {
  await user.click(screen.getByRole('radio', { name: gender }));
  await user.selectOptions(screen.getByLabelText('Ethnicity'), ethnicity);
  await user.clear(screen.getByLabelText('Age'));
  await user.type(screen.getByLabelText('Age'), age);
}

let objectUrls = 0;
beforeEach(() => {
  objectUrls = 0;
  URL.createObjectURL = vi.fn(() => `blob:photo-${++objectUrls}`);
  URL.revokeObjectURL = vi.fn();
});
afterEach(cleanup);

describe('landing on the AI Photos screen (also from the onboarding’s "Upload photos")', () => {
  it('is ready to start: the Prepare step is current, the form empty, the list loaded', async () => {
    const fake = fakeAiPhotosGateway();
    renderTool(fake);
    expect(screen.getByRole('heading', { level: 1, name: 'AI Photos' })).toBeTruthy();
    expect(currentStep()).toContain('Prepare');
    expect(screen.getByTestId('wizard-step-train').dataset.state).toBe('upcoming');
    expect(screen.getByTestId('wizard-step-generate').dataset.state).toBe('upcoming');
    expect(panel().dataset.view).toBe('prepare');
    const input = screen.getByLabelText('Photos') as HTMLInputElement;
    expect(input.multiple).toBe(true);
    expect(input.accept).toBe('image/jpeg,image/png,image/webp');
    expect(screen.getByTestId('photo-count').textContent).toBe('0 of 30 photos selected');
    expect(button('Upload photos').disabled).toBe(false);
    expect(screen.queryByRole('button', { name: 'Start a new model' })).toBeNull();
    // The side list: loading, then its empty state.
    expect(await screen.findByTestId('task-list-empty')).toBeTruthy();
    expect(screen.getByText('No AI Photo tasks yet')).toBeTruthy();
    expect(fake.gateway.listTasks).toHaveBeenCalledTimes(1);
    expect(fake.gateway.readTask).not.toHaveBeenCalled();
  });

  it('waits for the user’s row: nothing is read, the list shows it is loading and Upload is disabled', async () => {
    const fake = fakeAiPhotosGateway([makeAiPhotoTask({ id: 'up-1' })]);
    const { rerender } = renderTool(fake, { url: `${TOOL}?taskId=up-1`, gateway: { ...fake.gateway, ready: false } });
    expect(panel().dataset.view).toBe('loading');
    expect(screen.getByTestId('task-list-loading')).toBeTruthy();
    await new Promise((r) => setTimeout(r, 20));
    expect(fake.gateway.readTask).not.toHaveBeenCalled();
    expect(fake.gateway.listTasks).not.toHaveBeenCalled();
    rerender(fake.gateway);
    await waitFor(() => expect(panel().dataset.view).toBe('train'));
    expect(fake.gateway.listTasks).toHaveBeenCalledTimes(1);
  });
});

describe('step 1, Prepare', () => {
  it('shows a thumbnail per photo, removes one, and counts them', async () => {
    const { user } = renderTool(fakeAiPhotosGateway());
    await user.upload(screen.getByLabelText('Photos'), photos(3));
    expect(thumbs().map((t) => t.dataset.file)).toEqual(['me-1.jpg', 'me-2.jpg', 'me-3.jpg']);
    expect((screen.getByRole('img', { name: 'me-2.jpg' }) as HTMLImageElement).src).toBe('blob:photo-2');
    expect(screen.getByTestId('photo-count').textContent).toBe('3 of 30 photos selected');
    await user.click(button('Remove me-2.jpg'));
    expect(thumbs().map((t) => t.dataset.file)).toEqual(['me-1.jpg', 'me-3.jpg']);
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:photo-2');
    // More can be added later; the same file again adds nothing.
    await user.upload(screen.getByLabelText('Photos'), [photo('me-1.jpg'), photo('extra.png', 'image/png')]);
    expect(thumbs().map((t) => t.dataset.file)).toEqual(['me-1.jpg', 'me-3.jpg', 'extra.png']);
  });

  it("stops at 30 with 'You already selected the maximum of 30 images'; removing one makes room", async () => {
    const { user } = renderTool(fakeAiPhotosGateway());
    await user.upload(screen.getByLabelText('Photos'), photos(28));
    expect(screen.queryByTestId('photos-max')).toBeNull();
    await user.upload(screen.getByLabelText('Photos'), photos(4, 'more'));
    expect(thumbs()).toHaveLength(30);
    expect(screen.getByTestId('photos-max').textContent).toBe('You already selected the maximum of 30 images');
    expect(thumbs().at(-1)?.dataset.file).toBe('more-2.jpg');
    await user.upload(screen.getByLabelText('Photos'), [photo('one-more.jpg')]);
    expect(thumbs()).toHaveLength(30);
    expect(screen.getByTestId('photos-max')).toBeTruthy();
    await user.click(button('Remove me-1.jpg'));
    expect(screen.queryByTestId('photos-max')).toBeNull();
    await user.upload(screen.getByLabelText('Photos'), [photo('one-more.jpg')]);
    expect(thumbs()).toHaveLength(30);
  });

  it("warns '{file}: low resolution (<512×512)' from the size each thumbnail decodes", async () => {
    const { user } = renderTool(fakeAiPhotosGateway());
    await user.upload(screen.getByLabelText('Photos'), [photo('big.jpg'), photo('small.jpg'), photo('edge.jpg'), photo('wide.jpg')]);
    decoded('big.jpg', 1200, 1600);
    decoded('small.jpg', 400, 500);
    decoded('edge.jpg', 512, 512);
    decoded('wide.jpg', 1024, 255);
    const warnings = screen.getAllByTestId('photo-warning').map((w) => w.textContent);
    expect(warnings).toEqual(['small.jpg: low resolution (<512×512)', 'wide.jpg: low resolution (<512×512)']);
    expect(
      thumbs()
        .filter((t) => t.dataset.lowResolution)
        .map((t) => t.dataset.file),
    ).toEqual(['small.jpg', 'wide.jpg']);
    // A warning, not a refusal: the photo stays selected. Removing it removes its warning.
    await user.click(button('Remove small.jpg'));
    expect(screen.getAllByTestId('photo-warning').map((w) => w.textContent)).toEqual(['wide.jpg: low resolution (<512×512)']);
  });

  it('says so when a chosen file cannot be decoded, and refuses types other than jpeg, png and webp', async () => {
    renderTool(fakeAiPhotosGateway());
    const user = userEvent.setup({ applyAccept: false });
    await user.upload(screen.getByLabelText('Photos'), [photo('broken.jpg'), photo('anim.gif', 'image/gif')]);
    fireEvent.error(screen.getByRole('img', { name: 'broken.jpg' }));
    expect(screen.getByTestId('photo-warning').textContent).toBe('broken.jpg: cannot be read as a picture');
    expect(screen.getByTestId('photos-refused').textContent).toBe('anim.gif: only jpeg, png and webp photos can be used');
    expect(thumbs().map((t) => t.dataset.file)).toEqual(['broken.jpg']);
  });

  it('checks 10–30 photos, gender, ethnicity and age before sending anything', async () => {
    const fake = fakeAiPhotosGateway();
    const { user } = renderTool(fake);
    await user.upload(screen.getByLabelText('Photos'), photos(9));
    await user.click(button('Upload photos'));
    expect(screen.getByTestId('photo-count').textContent).toBe('Select 10–30 photos (9 selected).');
    expect(screen.getByTestId('gender-error').textContent).toBe('Select a gender.');
    expect(screen.getByTestId('ethnicity-error').textContent).toBe('Select an ethnicity.');
    expect(screen.getByTestId('age-error').textContent).toBe('Enter an age as a whole number (1–120).');
    expect(screen.getByLabelText('Photos').getAttribute('aria-invalid')).toBe('true');

    await user.type(screen.getByLabelText('Age'), 'abc');
    await user.click(screen.getByRole('radio', { name: 'Male' }));
    expect(screen.queryByTestId('gender-error')).toBeNull();
    expect(screen.getByTestId('age-error')).toBeTruthy();
    await user.click(button('Upload photos'));
    expect(fake.gateway.uploadPhotos).not.toHaveBeenCalled();
  });

  it('uploads: the photos as base64 with gender, ethnicity and age, showing the upload, then follows the task', async () => {
    const fake = fakeAiPhotosGateway();
    const sent = deferred<string>();
    vi.mocked(fake.gateway.uploadPhotos).mockImplementationOnce(() => sent.promise);
    const { user } = renderTool(fake);
    const chosen = photos(10);
    await user.upload(screen.getByLabelText('Photos'), chosen);
    await fillPerson(user);
    await user.click(button('Upload photos'));

    const progress = await screen.findByTestId('upload-progress');
    await waitFor(() => expect(progress.dataset.phase).toBe('sending'));
    expect(progress.textContent).toContain('Uploading 10 photos (');
    expect(screen.queryByRole('button', { name: 'Upload photos' })).toBeNull();
    expect((screen.getByLabelText('Photos') as HTMLInputElement).disabled).toBe(true);
    expect(fake.gateway.uploadPhotos).toHaveBeenCalledWith(
      {
        images: chosen.map((f) => base64(`bytes of ${f.name}`)),
        gender: 'female',
        ethnicity: 'middle eastern',
        age: 34,
      },
      expect.any(String),
    );

    // (the call was answered by hand: the fake's row is made here)
    fake.rows.set('up-7', { task: makeAiPhotoTask({ id: 'up-7', status: 'queued', percentage: 0 }), archived: false });
    await act(async () => sent.resolve('up-7'));
    await waitFor(() => expect(taskIdInUrl()).toBe('up-7'));
    await waitFor(() => expect(fake.watchers.has('up-7')).toBe(true));
    expect(panel().dataset.view).toBe('running');
    expect(currentStep()).toContain('Prepare');
    expect(screen.getByRole('heading', { name: 'Checking your photos' })).toBeTruthy();
    act(() => fake.update('up-7', { status: 'processing', percentage: 60 }));
    await waitFor(() => expect(screen.getByTestId('task-percentage').textContent).toBe('60%'));
    expect(screen.getByTestId('task-view').dataset.taskType).toBe('ai-photo-upload');
  });

  it('sends what preparePhoto makes of each photo (a scaled-down copy of a large one), with the sizes the thumbnails decoded', async () => {
    const fake = fakeAiPhotosGateway();
    const preparePhoto = vi.fn(async (file: File, size: { width: number; height: number } | null) =>
      size && size.width > 2048 ? new Blob([`small ${file.name}`]) : file,
    );
    const { user } = renderTool(fake, { preparePhoto });
    await user.upload(screen.getByLabelText('Photos'), photos(10));
    decoded('me-1.jpg', 4032, 3024);
    await fillPerson(user);
    await user.click(button('Upload photos'));
    await waitFor(() => expect(fake.gateway.uploadPhotos).toHaveBeenCalled(), { timeout: 10_000 }); // preparePhoto decodes and scales real pictures: slow on a loaded machine
    expect(preparePhoto).toHaveBeenCalledWith(expect.objectContaining({ name: 'me-1.jpg' }), { width: 4032, height: 3024 });
    expect(preparePhoto).toHaveBeenCalledWith(expect.objectContaining({ name: 'me-2.jpg' }), null);
    const { images } = vi.mocked(fake.gateway.uploadPhotos).mock.calls[0]![0];
    expect(images[0]).toBe(base64('small me-1.jpg'));
    expect(images[1]).toBe(base64('bytes of me-2.jpg'));
  });

  it("says 'Error uploading and preparing training data!' with the server's reason, naming the photo, and keeps the form", async () => {
    const fake = fakeAiPhotosGateway();
    vi.mocked(fake.gateway.uploadPhotos).mockRejectedValueOnce(new ApiError('images[3]: not a JPEG, PNG or WebP image', 400));
    const { user, notifyError } = renderTool(fake);
    await user.upload(screen.getByLabelText('Photos'), photos(10));
    await fillPerson(user);
    await user.click(button('Upload photos'));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error uploading and preparing training data!'), { timeout: 10_000 });
    expect(screen.getByTestId('prepare-error').textContent).toBe('me-4.jpg: not a JPEG, PNG or WebP image');
    expect(thumbs()).toHaveLength(10);
    expect((screen.getByLabelText('Age') as HTMLInputElement).value).toBe('34');
    expect(taskIdInUrl()).toBeNull();
    // Fixed and sent again: the message goes.
    await user.click(button('Upload photos'));
    await waitFor(() => expect(taskIdInUrl()).toBe('up-100'));
  });

  it("says 'Error uploading images!' when a photo cannot be read, and sends nothing", async () => {
    const fake = fakeAiPhotosGateway();
    const preparePhoto = vi.fn(async (file: File) => {
      if (file.name === 'me-2.jpg') throw new DOMException('NotReadableError');
      return file;
    });
    const { user, notifyError } = renderTool(fake, { preparePhoto });
    await user.upload(screen.getByLabelText('Photos'), photos(10));
    await fillPerson(user);
    await user.click(button('Upload photos'));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error uploading images!'));
    expect(screen.getByTestId('prepare-error').textContent).toBe('me-2.jpg could not be read. Remove it or choose it again.');
    expect(fake.gateway.uploadPhotos).not.toHaveBeenCalled();
    expect(button('Upload photos').disabled).toBe(false);
  });
});

describe('step 2, Train', () => {
  const doneUpload = (over: Partial<AiPhotoTask> = {}) =>
    makeAiPhotoTask({
      id: 'up-1',
      status: 'finished',
      input_data: { gender: 'female', ethnicity: 'asian', age: 30, images: Array.from({ length: 10 }, (_, i) => `http://m/up-1-${i + 1}.jpg`) },
      result: {
        note: 'Photos checked locally by face detection: 9 of 10 usable (one face each, at least 80 px wide).',
        photos: Array.from({ length: 10 }, (_, i) => (i === 3 ? { index: 3, ok: false, reason: 'several people' } : { index: i, ok: true })),
      },
      ...over,
    });

  it('a finished upload shows its per-photo verdicts and asks for the trigger word (step 1 done)', async () => {
    renderTool(fakeAiPhotosGateway([doneUpload()]), { url: `${TOOL}?taskId=up-1` });
    await waitFor(() => expect(panel().dataset.view).toBe('train'));
    expect(currentStep()).toContain('Train');
    expect(screen.getByTestId('wizard-step-prepare').dataset.state).toBe('done');
    const verdicts = screen.getByTestId('photo-verdicts');
    expect(within(verdicts).getByText('9 of 10 photos can be used')).toBeTruthy();
    const refused = within(verdicts).getAllByTestId('photo-verdict');
    expect(refused.map((r) => r.textContent)).toEqual(['Photo 4: several people']);
    expect(refused[0]!.querySelector('img')?.getAttribute('src')).toBe('http://m/up-1-4.jpg');
    // How the server checked them, in its own words.
    expect(screen.getByTestId('upload-note').textContent).toBe(
      'Photos checked locally by face detection: 9 of 10 usable (one face each, at least 80 px wide).',
    );
    expect(screen.getByLabelText('Trigger word')).toBeTruthy();
  });

  it('names refused photos by the files chosen here, after the check finishes live; the selection is let go', async () => {
    const fake = fakeAiPhotosGateway();
    const { user } = renderTool(fake);
    await user.upload(screen.getByLabelText('Photos'), photos(10));
    await fillPerson(user);
    await user.click(button('Upload photos'));
    await waitFor(() => expect(fake.watchers.has('up-100')).toBe(true));
    act(() => fake.update('up-100', { status: 'finished', percentage: 100, result: { rejected: [{ index: 6, reason: 'no face found' }] } }));
    await waitFor(() => expect(panel().dataset.view).toBe('train'));
    expect(screen.getByTestId('photo-verdict').textContent).toBe('me-7.jpg: no face found');
    expect(within(screen.getByTestId('photo-verdicts')).getByText('9 of 10 photos can be used')).toBeTruthy();
    // The list shows the finished upload, offering Train now.
    await waitFor(() => expect(within(listItem('up-100')).getByRole('button', { name: 'Train now' })).toBeTruthy());
    await user.click(button('Start a new model'));
    expect(thumbs()).toHaveLength(0);
  });

  it("checks the trigger word ('Trigger word must be 6–12 characters'), then trains and follows the training live", async () => {
    const fake = fakeAiPhotosGateway([doneUpload()]);
    const { user } = renderTool(fake, { url: `${TOOL}?taskId=up-1` });
    const word = await screen.findByLabelText('Trigger word');
    await user.type(word, 'ohwx');
    await user.click(button('Train model'));
    expect(screen.getByTestId('trigger-word-error').textContent).toBe('Trigger word must be 6–12 characters');
    await user.type(word, 'annalena99');
    expect(screen.getByTestId('trigger-word-error').textContent).toBe('Trigger word must be 6–12 characters');
    expect(fake.gateway.train).not.toHaveBeenCalled();
    await user.clear(word);
    await user.type(word, 'ohwxanna{Enter}');
    expect(screen.queryByTestId('trigger-word-error')).toBeNull();
    await waitFor(() => expect(fake.gateway.train).toHaveBeenCalledWith('up-1', 'ohwxanna', expect.any(String)));
    await waitFor(() => expect(taskIdInUrl()).toBe('tr-100'));
    await waitFor(() => expect(fake.watchers.has('tr-100')).toBe(true));
    expect(panel().dataset.view).toBe('running');
    expect(currentStep()).toContain('Train');
    expect(screen.getByTestId('trigger-word').textContent).toBe('Trigger word: ohwxanna');
    act(() => fake.update('tr-100', { status: 'running', percentage: 35 }));
    await waitFor(() => expect(screen.getByTestId('task-percentage').textContent).toBe('35%'));
    // A late, older row does not move progress back.
    act(() => fake.watchers.get('tr-100')!({ ...fake.rows.get('tr-100')!.task, status: 'processing', percentage: 10 }));
    await waitFor(() => expect(screen.getByTestId('task-status').textContent).toBe('Processing'));
    expect(screen.getByTestId('task-percentage').textContent).toBe('35%');
    const note = 'Identity profile from face analysis; no generative model was trained. Kept 9 of 10 photos of one person.';
    act(() => fake.update('tr-100', { status: 'finished', percentage: 100, result: { note } }));
    await waitFor(() => expect(panel().dataset.view).toBe('generate'));
    expect(screen.getByTestId('training-note').textContent).toBe(note);
    expect(currentStep()).toContain('Generate');
    expect(fake.unsubscribed).toEqual(['tr-100']);
    // The heading of the new step has focus.
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Generate photos' }));
  });

  it("says 'Error training the model!' with the server's reason when the training cannot start", async () => {
    const fake = fakeAiPhotosGateway([doneUpload()]);
    vi.mocked(fake.gateway.train).mockRejectedValueOnce(new ApiError('Not enough credits', 402));
    const { user, notifyError } = renderTool(fake, { url: `${TOOL}?taskId=up-1` });
    await user.type(await screen.findByLabelText('Trigger word'), 'ohwxanna');
    await user.click(button('Train model'));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error training the model!'));
    expect(screen.getByTestId('train-error').textContent).toBe('Not enough credits');
    expect(taskIdInUrl()).toBe('up-1');
  });

  it("a training that fails while followed says 'Error training the model!' and shows 'Task Failed'; Train again reopens the upload", async () => {
    const fake = fakeAiPhotosGateway([
      doneUpload(),
      makeAiPhotoTask({
        id: 'tr-1',
        type: 'ai-photo-train',
        status: 'running',
        percentage: 50,
        input_data: { training_images_id: 'up-1', trigger_word: 'ohwxanna' },
      }),
    ]);
    const { user, notifyError } = renderTool(fake, { url: `${TOOL}?taskId=tr-1` });
    await waitFor(() => expect(fake.watchers.has('tr-1')).toBe(true));
    act(() => fake.update('tr-1', { status: 'failed', result: { message: 'Too few photos show the same person.' }, refund: 40 }));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error training the model!'));
    const failed = screen.getByTestId('task-failed');
    expect(within(failed).getByText('Task Failed')).toBeTruthy();
    expect(within(failed).getByTestId('task-failed-message').textContent).toBe('Too few photos show the same person.');
    expect(within(failed).getByTestId('task-refund').textContent).toBe('40 credits were refunded.');
    await user.click(button('Train again'));
    await waitFor(() => expect(panel().dataset.view).toBe('train'));
    expect(taskIdInUrl()).toBe('up-1');
  });

  it('restoring a failed training does not toast again', async () => {
    const fake = fakeAiPhotosGateway([makeAiPhotoTask({ id: 'tr-1', type: 'ai-photo-train', status: 'failed', result: { message: 'x' } })]);
    const { notifyError } = renderTool(fake, { url: `${TOOL}?taskId=tr-1` });
    await screen.findByTestId('task-failed');
    expect(notifyError).not.toHaveBeenCalled();
  });
});

describe('step 3, Generate', () => {
  const training = makeAiPhotoTask({
    id: 'tr-1',
    type: 'ai-photo-train',
    status: 'finished',
    input_data: { training_images_id: 'up-1', trigger_word: 'ohwxanna' },
  });
  const NOTE = 'Template-based: the trained face swapped onto portrait templates graded for the prompt; not a generative model.';

  it('asks for a prompt, then generates 4 photos with the chosen aspect ratio, shown as they arrive, with the server’s label', async () => {
    const fake = fakeAiPhotosGateway([training]);
    const { user } = renderTool(fake, { url: `${TOOL}?taskId=tr-1` });
    await waitFor(() => expect(panel().dataset.view).toBe('generate'));
    expect(screen.getByTestId('photos-empty').textContent).toBe('Your 4 photos will appear here.');
    await user.click(button('Generate 4 photos'));
    expect(screen.getByTestId('prompt-error').textContent).toBe('Describe the photos you want.');
    expect(fake.gateway.generate).not.toHaveBeenCalled();

    await user.click(button('a vintage studio photo'));
    expect((screen.getByLabelText('Prompt') as HTMLTextAreaElement).value).toBe('a vintage studio photo');
    await user.selectOptions(screen.getByLabelText('Aspect ratio'), '2:3');
    await user.click(button('Generate 4 photos'));
    expect(fake.gateway.generate).toHaveBeenCalledWith(
      {
        trainingId: 'tr-1',
        prompt: 'a vintage studio photo',
        aspectRatio: '2:3',
        width: 680,
        height: 1024,
        numberOfImages: 4,
        seed: 2 ** 29,
      },
      expect.any(String),
    );
    await waitFor(() => expect(taskIdInUrl()).toBe('gen-100'));
    await waitFor(() => expect(fake.watchers.has('gen-100')).toBe(true));
    const places = () => screen.getAllByTestId('generated-photo');
    expect(places().map((p) => p.dataset.ready)).toEqual(['false', 'false', 'false', 'false']);
    expect(button('Generate 4 photos').disabled).toBe(true);

    act(() => fake.update('gen-100', { status: 'running', percentage: 50, image_urls: ['http://m/g1.jpg', 'http://m/g2.jpg'], image_url: 'http://m/g1.jpg' }));
    await waitFor(() => expect(places().map((p) => p.dataset.ready)).toEqual(['true', 'true', 'false', 'false']));
    expect((screen.getByRole('img', { name: 'AI photo 2' }) as HTMLImageElement).src).toBe('http://m/g2.jpg');

    act(() =>
      fake.update('gen-100', {
        status: 'finished',
        percentage: 100,
        image_urls: ['http://m/g1.jpg', 'http://m/g2.jpg', 'http://m/g3.jpg', 'http://m/g4.jpg'],
        result: { note: NOTE, engine: 'local-face' },
      }),
    );
    await waitFor(() => expect(panel().dataset.view).toBe('photos'));
    expect(places().map((p) => p.querySelector('img')?.getAttribute('src'))).toEqual([
      'http://m/g1.jpg',
      'http://m/g2.jpg',
      'http://m/g3.jpg',
      'http://m/g4.jpg',
    ]);
    expect(screen.getByTestId('result-note').textContent).toBe(NOTE);
    expect(screen.getByTestId('wizard-step-generate').dataset.state).toBe('done');
    expect(button('Generate 4 photos').disabled).toBe(false);
  });

  it('Enter in the prompt generates; Shift+Enter adds a line', async () => {
    const fake = fakeAiPhotosGateway([training]);
    const { user } = renderTool(fake, { url: `${TOOL}?taskId=tr-1` });
    const prompt = await screen.findByLabelText('Prompt');
    await user.type(prompt, 'on a beach{Shift>}{Enter}{/Shift}at dusk');
    expect((prompt as HTMLTextAreaElement).value).toBe('on a beach\nat dusk');
    expect(fake.gateway.generate).not.toHaveBeenCalled();
    await user.type(prompt, '{Enter}');
    await waitFor(() =>
      expect(fake.gateway.generate).toHaveBeenCalledWith(
        expect.objectContaining({ prompt: 'on a beach\nat dusk', aspectRatio: '3:4', width: 768, height: 1024 }),
        expect.any(String),
      ),
    );
  });

  it("says 'Error generating AI Photos!' when the photos cannot be asked for, or when the generation fails", async () => {
    const fake = fakeAiPhotosGateway([training]);
    vi.mocked(fake.gateway.generate).mockRejectedValueOnce(new ApiError('The training expired at 2026-12-01T00:00:00.000Z; train a new model', 409));
    const { user, notifyError } = renderTool(fake, { url: `${TOOL}?taskId=tr-1` });
    await user.type(await screen.findByLabelText('Prompt'), 'a cinematic portrait');
    await user.click(button('Generate 4 photos'));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error generating AI Photos!'));
    expect(screen.getByTestId('generate-error').textContent).toBe('The training expired at 2026-12-01T00:00:00.000Z; train a new model');

    await user.click(button('Generate 4 photos'));
    await waitFor(() => expect(fake.watchers.has('gen-100')).toBe(true));
    expect(screen.queryByTestId('generate-error')).toBeNull();
    act(() => fake.update('gen-100', { status: 'failed', result: { message: 'No face found in the template.' }, refund: 4 }));
    await waitFor(() => expect(notifyError).toHaveBeenCalledTimes(2));
    expect(notifyError).toHaveBeenLastCalledWith('Error generating AI Photos!');
    expect(screen.getByTestId('task-failed-message').textContent).toBe('No face found in the template.');
    // The same model can be asked again.
    expect(button('Generate 4 photos').disabled).toBe(false);
  });

  it('downloads each photo as <task id>-<n>.<ext>; a failed fetch says "Error downloading image"', async () => {
    const done = makeAiPhotoTask({
      id: 'gen-1',
      type: 'ai-photo-generate',
      status: 'finished',
      prompt: 'a business headshot',
      image_url: 'http://m/a.jpg',
      image_urls: ['http://m/a.jpg', 'http://m/b.jpg', 'http://m/c.jpg', 'http://m/d.jpg'],
      input_data: { training_id: 'tr-1', aspect_ratio: '1:1' },
    });
    const fake = fakeAiPhotosGateway([training, done]);
    const saved: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    const { user, notifyError } = renderTool(fake, { url: `${TOOL}?taskId=gen-1` });
    await user.click(await screen.findByRole('button', { name: 'Download photo 3' }));
    await waitFor(() => expect(saved).toEqual(['gen-1-3.jpg']));
    expect(fake.gateway.fetchImage).toHaveBeenCalledWith('http://m/c.jpg');
    vi.mocked(fake.gateway.fetchImage).mockRejectedValueOnce(new Error('GET: HTTP 404'));
    await user.click(button('Download photo 1'));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error downloading image'));
    expect(saved).toEqual(['gen-1-3.jpg']);
    click.mockRestore();
  });
});

describe('restoring ?taskId=', () => {
  it('a generation shows its photos, its prompt and the model’s trigger word; Generate again uses the same training', async () => {
    const gen = makeAiPhotoTask({
      id: 'gen-1',
      type: 'ai-photo-generate',
      status: 'finished',
      prompt: 'a noir portrait',
      image_urls: ['http://m/1.jpg', 'http://m/2.jpg', 'http://m/3.jpg', 'http://m/4.jpg'],
      parent_id: 'tr-1',
      input_data: { training_id: 'tr-1', aspect_ratio: '3:4' },
    });
    const train = makeAiPhotoTask({ id: 'tr-1', type: 'ai-photo-train', status: 'finished', input_data: { trigger_word: 'ohwxanna' } });
    const fake = fakeAiPhotosGateway([train, gen]);
    const { user } = renderTool(fake, { url: `${TOOL}?taskId=gen-1` });
    await waitFor(() => expect(screen.getAllByRole('img', { name: /^AI photo/ })).toHaveLength(4));
    expect(within(screen.getByTestId('generated-photos')).getByText('a noir portrait')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('trigger-word').textContent).toBe('Trigger word: ohwxanna'));
    expect(fake.gateway.watchTask).not.toHaveBeenCalled();
    await user.type(screen.getByLabelText('Prompt'), 'again');
    await user.click(button('Generate 4 photos'));
    await waitFor(() => expect(fake.gateway.generate).toHaveBeenCalledWith(expect.objectContaining({ trainingId: 'tr-1' }), expect.any(String)));
  });

  it("refuses a task of another type with 'This task is not an AI Photo task!' and clears the task id", async () => {
    const fake = fakeAiPhotosGateway([makeAiPhotoTask({ id: 'mj', type: 'imagine' })]);
    const { notifyError } = renderTool(fake, { url: `${TOOL}?taskId=mj&x=1` });
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('This task is not an AI Photo task!'));
    await waitFor(() => expect(taskIdInUrl()).toBeNull());
    expect(location).toBe(`${TOOL}?x=1`);
    expect(panel().dataset.view).toBe('prepare');
  });

  it("toasts 'Error fetching task!' when the task cannot be read, and offers a new start", async () => {
    const fake = fakeAiPhotosGateway();
    const { notifyError, user } = renderTool(fake, { url: `${TOOL}?taskId=missing` });
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith(ERROR_FETCHING_TASK));
    expect(panel().dataset.view).toBe('error');
    await user.click(button('Start a new model'));
    expect(taskIdInUrl()).toBeNull();
    expect(panel().dataset.view).toBe('prepare');
  });
});

describe('the side list of models and tasks', () => {
  const tasks = [
    makeAiPhotoTask({ id: 'gen-1', type: 'ai-photo-generate', status: 'finished', prompt: 'a vintage studio photo', input_data: { training_id: 'tr-1' } }),
    makeAiPhotoTask({ id: 'tr-1', type: 'ai-photo-train', status: 'finished', input_data: { trigger_word: 'ohwxanna', training_images_id: 'up-1' } }),
    makeAiPhotoTask({ id: 'up-1', type: 'ai-photo-upload', status: 'finished', input_data: { gender: 'female', ethnicity: 'asian', age: 30 } }),
    makeAiPhotoTask({ id: 'up-0', type: 'ai-photo-upload', status: 'failed' }),
  ].reverse();

  it('filters by All Tasks, Model Training and Image Upload', async () => {
    const { user } = renderTool(fakeAiPhotosGateway(tasks));
    await waitFor(() => expect(screen.getAllByTestId('task-list-item')).toHaveLength(4));
    const ids = () => screen.getAllByTestId('task-list-item').map((i) => i.dataset.taskId);
    expect(ids()).toEqual(['gen-1', 'tr-1', 'up-1', 'up-0']);
    expect(within(listItem('tr-1')).getByText('Trigger word: ohwxanna')).toBeTruthy();
    expect(within(listItem('up-1')).getByText('female, asian, age 30')).toBeTruthy();
    await user.click(screen.getByRole('tab', { name: 'Model Training' }));
    expect(ids()).toEqual(['tr-1']);
    await user.click(screen.getByRole('tab', { name: 'Image Upload' }));
    expect(ids()).toEqual(['up-1', 'up-0']);
    await user.click(screen.getByRole('tab', { name: 'All Tasks' }));
    expect(ids()).toHaveLength(4);
  });

  it('says which filter has nothing', async () => {
    const { user } = renderTool(fakeAiPhotosGateway([makeAiPhotoTask({ id: 'up-1' })]));
    await waitFor(() => expect(screen.getAllByTestId('task-list-item')).toHaveLength(1));
    await user.click(screen.getByRole('tab', { name: 'Model Training' }));
    expect(screen.getByText('No trained models yet')).toBeTruthy();
  });

  it('Train now opens a finished upload at step 2; Generate opens a finished training at step 3; Open the rest', async () => {
    const fake = fakeAiPhotosGateway(tasks);
    const { user } = renderTool(fake);
    await waitFor(() => expect(screen.getAllByTestId('task-list-item')).toHaveLength(4));
    expect(within(listItem('up-0')).getByRole('button').textContent).toBe('Open');
    expect(within(listItem('gen-1')).getByRole('button').textContent).toBe('Open');

    await user.click(within(listItem('up-1')).getByRole('button', { name: 'Train now' }));
    await waitFor(() => expect(panel().dataset.view).toBe('train'));
    expect(taskIdInUrl()).toBe('up-1');
    expect(listItem('up-1').getAttribute('aria-current')).toBe('true');

    await user.click(within(listItem('tr-1')).getByRole('button', { name: 'Generate' }));
    await waitFor(() => expect(panel().dataset.view).toBe('generate'));
    expect(taskIdInUrl()).toBe('tr-1');
    expect(screen.getByTestId('trigger-word').textContent).toBe('Trigger word: ohwxanna');

    await user.click(within(listItem('gen-1')).getByRole('button', { name: 'Open' }));
    await waitFor(() => expect(panel().dataset.view).toBe('photos'));
  });

  it("says 'Error fetching AI Photo tasks!' when the list cannot load, and Retry loads it", async () => {
    const fake = fakeAiPhotosGateway(tasks);
    vi.mocked(fake.gateway.listTasks).mockRejectedValueOnce(new Error('JWT expired'));
    const { notifyError, user } = renderTool(fake);
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error fetching AI Photo tasks!'));
    expect(screen.getByTestId('task-list-error')).toBeTruthy();
    await user.click(within(screen.getByTestId('task-list')).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(screen.getAllByTestId('task-list-item')).toHaveLength(4));
  });

  it('keeps the rows it has when a later refresh fails', async () => {
    const fake = fakeAiPhotosGateway([makeAiPhotoTask({ id: 'up-1', input_data: { images: [] } })]);
    const { notifyError, user } = renderTool(fake, { url: `${TOOL}?taskId=up-1` });
    await waitFor(() => expect(screen.getAllByTestId('task-list-item')).toHaveLength(1));
    vi.mocked(fake.gateway.listTasks).mockRejectedValueOnce(new Error('offline'));
    await user.type(screen.getByLabelText('Trigger word'), 'ohwxanna');
    await user.click(button('Train model'));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error fetching AI Photo tasks!'));
    expect(screen.getAllByTestId('task-list-item')).toHaveLength(1);
  });
});

describe('keyboard', () => {
  it('Tab reaches the photo input, the gender radios (arrow keys choose), ethnicity, age and Upload photos', async () => {
    const fake = fakeAiPhotosGateway();
    const { user } = renderTool(fake);
    await screen.findByTestId('task-list-empty');
    await user.tab();
    expect(document.activeElement).toBe(screen.getByLabelText('Photos'));
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('radio', { name: 'Male' }));
    await user.keyboard('{ArrowRight}');
    expect((screen.getByRole('radio', { name: 'Female' }) as HTMLInputElement).checked).toBe(true);
    await user.tab();
    expect(document.activeElement).toBe(screen.getByLabelText('Ethnicity'));
    await user.tab();
    expect(document.activeElement).toBe(screen.getByLabelText('Age'));
    await user.tab();
    expect(document.activeElement).toBe(button('Upload photos'));
  });
});
