// @vitest-environment jsdom
// The Midjourney actions beyond Imagine (issue 11): per-cell upscalers and vary, the edits of an
// upscaled image (pan, zoom out, vary, vary region with its mask), describe, blend and shorten;
// each creates a task the screen follows (taskId in the URL) and shows by spec §4's rule.
import { inflateSync } from 'node:zlib';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChakraProvider } from '@chakra-ui/react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { system } from '@aim/shared-kit/theme';
import { MidjourneyTool } from '../src/features/midjourney/midjourney-tool.tsx';
import { BLEND_COUNT_MESSAGE, EMPTY_REGION_MESSAGE, EMPTY_SHORTEN_MESSAGE, type MidjourneyTask } from '../src/features/midjourney/task-model.ts';
import { UNSUPPORTED_IMAGE_MESSAGE } from '../src/features/tasks/task-rules.ts';
import { fakeGateway, makeTask } from './support/fake-gateway.ts';

// Each case renders the whole screen with its menus and dialogs in jsdom (1–3 s alone); on a
// shared 2-core machine that can pass vitest's 5 s default without anything being wrong.
vi.setConfig({ testTimeout: 20_000 });

let location = '';
function LocationProbe() {
  const loc = useLocation();
  location = loc.pathname + loc.search;
  return null;
}
const taskIdInUrl = () => new URLSearchParams(location.split('?')[1] ?? '').get('taskId');

function renderTool(fake: ReturnType<typeof fakeGateway>, url = '/dashboard/tools/midjourney') {
  const notifyError = vi.fn();
  render(
    <ChakraProvider value={system}>
      <MemoryRouter initialEntries={[url]}>
        <MidjourneyTool gateway={fake.gateway} mode="embedded" notifyError={notifyError} seedDelayMs={0} />
        <LocationProbe />
      </MemoryRouter>
    </ChakraProvider>,
  );
  return { notifyError, user: userEvent.setup() };
}

const cells = (id: string) => [1, 2, 3, 4].map((i) => `http://x/${id}-${i}.png`);
/** What the worker does when a grid task finishes. */
const finishGrid = (fake: ReturnType<typeof fakeGateway>, id: string) =>
  act(() => fake.update(id, { status: 'finished', percentage: 100, image_url: `http://x/${id}.png`, image_urls: cells(id) }));

/** An upscaled cell of 800×600 pixels (its result records the size, as the server's does). */
const upscaled = (over: Partial<MidjourneyTask> = {}) =>
  makeTask({ id: 'up-2', type: 'upscale#2', image_url: 'http://x/up-2.png', image_urls: ['http://x/up-2.png'], result: { width: 800, height: 600 }, ...over });

const png = (name: string) => new File(['png'], name, { type: 'image/png' });

beforeEach(() => {
  // jsdom draws nothing: the editor skips its canvas preview; the mask comes from the shapes.
  HTMLCanvasElement.prototype.getContext = vi.fn(() => null) as unknown as HTMLCanvasElement['getContext'];
  URL.createObjectURL = vi.fn(() => 'blob:preview');
  URL.revokeObjectURL = vi.fn();
});
afterEach(cleanup);

/** Reads back an 8-bit greyscale PNG: its size and pixels. */
function readMask(base64: string) {
  const bytes = Buffer.from(base64, 'base64');
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  expect([bytes[24], bytes[25]], 'bit depth 8, greyscale').toEqual([8, 0]);
  const idat: Buffer[] = [];
  for (let o = 8; o < bytes.length; ) {
    const len = bytes.readUInt32BE(o);
    if (bytes.toString('latin1', o + 4, o + 8) === 'IDAT') idat.push(bytes.subarray(o + 8, o + 8 + len));
    o += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const at = (x: number, y: number) => raw[y * (width + 1) + 1 + x];
  let white = 0;
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (at(x, y) === 255) white++;
  return { width, height, at, white };
}

describe('a grid cell: Upscale (Subtle/Creative) and Variation (Strong/Subtle)', () => {
  it('the upscale menu sends {parent_task_id, index, type subtle}; the result is a single image', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'grid-1' }), archived: false }]);
    const { user } = renderTool(fake, '/dashboard/tools/midjourney?taskId=grid-1');
    (await screen.findByRole('button', { name: 'More upscales of image 3' })).focus();
    await user.keyboard('{Enter}');
    const subtle = await screen.findByRole('menuitem', { name: 'Upscale (Subtle)' });
    await waitFor(() => expect(subtle.dataset.highlighted).toBeDefined());
    await user.keyboard('{Enter}');
    await waitFor(() => expect(fake.gateway.upscale).toHaveBeenCalledWith('grid-1', 3, 'subtle', expect.any(String)));
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
    act(() => fake.update('task-100', { status: 'finished', percentage: 100, image_url: 'http://x/s.png', image_urls: ['http://x/s.png'] }));
    expect(within(await screen.findByTestId('result-single')).getAllByRole('img')).toHaveLength(1);
    expect(screen.queryByTestId('result-grid')).toBeNull();
  });

  it('Vary (Strong) of image 1, chosen with the keyboard, is a new task shown as a 4-image grid', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'grid-1' }), archived: false }]);
    const { user } = renderTool(fake, '/dashboard/tools/midjourney?taskId=grid-1');
    (await screen.findByRole('button', { name: 'Vary image 1' })).focus();
    await user.keyboard('{Enter}');
    const strong = await screen.findByRole('menuitem', { name: 'Vary (Strong)' });
    await waitFor(() => expect(strong.dataset.highlighted).toBeDefined());
    await user.keyboard('{Enter}');
    expect(fake.gateway.varyCell).toHaveBeenCalledWith('grid-1', 1, 'strong', expect.any(String));
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
    finishGrid(fake, 'task-100');
    expect(within(await screen.findByTestId('result-grid')).getAllByRole('img')).toHaveLength(4);
    expect(screen.getByTestId('task-view').dataset.taskType).toBe('variation-strong');
  });

  it('an archived grid shows its pictures without Upscale, Variation, Get Seed or Reroll (spec §6)', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'old' }), archived: true }]);
    renderTool(fake, '/dashboard/tools/midjourney?taskId=old');
    expect(within(await screen.findByTestId('result-grid')).getAllByRole('img')).toHaveLength(4);
    for (const name of [/Upscale image/, /Variation of image/, /More upscales/, /Vary image/, 'Get Seed', 'Reroll']) {
      expect(screen.queryByRole('button', { name })).toBeNull();
    }
    expect(screen.getByRole('button', { name: 'Download' })).toBeTruthy();
  });
});

describe('an upscaled image: pan, zoom out, vary', () => {
  it.each([
    ['Pan left', 'pan', ['up-2', 'left'], 'pan-left'],
    ['Pan up', 'pan', ['up-2', 'up'], 'pan-up'],
    ['Zoom Out 2x', 'zoomOut', ['up-2', 2], 'outpaint-2x'],
    ['Zoom Out 1.5x', 'zoomOut', ['up-2', 1.5], 'outpaint-1.5x'],
    ['Vary (Strong)', 'varyImage', ['up-2', 'strong'], 'variation-strong'],
    ['Vary (Subtle)', 'varyImage', ['up-2', 'subtle'], 'variation-subtle'],
  ] as const)('%s creates a task with %s(%j); its result is a 4-image grid', async (button, call, args, type) => {
    const fake = fakeGateway([{ task: upscaled(), archived: false }]);
    const { user } = renderTool(fake, '/dashboard/tools/midjourney?taskId=up-2');
    await user.click(await screen.findByRole('button', { name: button }));
    expect(fake.gateway[call]).toHaveBeenCalledWith(...args, expect.any(String));
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
    expect(await screen.findByTestId('task-progress')).toBeTruthy();
    finishGrid(fake, 'task-100');
    expect(within(await screen.findByTestId('result-grid')).getAllByRole('img')).toHaveLength(4);
    expect(screen.getByTestId('task-view').dataset.taskType).toBe(type);
    expect(screen.queryByTestId('result-single')).toBeNull();
  });

  it('every edit waits while one is being created, and a refused one leaves the image as it was', async () => {
    const fake = fakeGateway([{ task: upscaled(), archived: false }]);
    let refuse!: (error: Error) => void;
    vi.mocked(fake.gateway.pan).mockImplementationOnce(() => new Promise((_, reject) => (refuse = reject)));
    const { user } = renderTool(fake, '/dashboard/tools/midjourney?taskId=up-2');
    await user.click(await screen.findByRole('button', { name: 'Pan right' }));
    for (const name of ['Pan left', 'Zoom Out 2x', 'Vary (Subtle)', 'Vary (Region)', 'Custom Zoom', 'Upscale 4x']) {
      expect((screen.getByRole('button', { name }) as HTMLButtonElement).disabled, name).toBe(true);
    }
    // The API client toasts the server's errors[0].msg (see midjourney-gateway.test.ts); the screen stays.
    await act(async () => refuse(new Error('Task not found')));
    await waitFor(() => expect((screen.getByRole('button', { name: 'Pan left' }) as HTMLButtonElement).disabled).toBe(false));
    expect(taskIdInUrl()).toBe('up-2');
    expect(screen.getByTestId('result-single')).toBeTruthy();
  });

  it('Custom Zoom sends the chosen ratio (keyboard on the slider, 0.1 steps), the shape and the prompt', async () => {
    const fake = fakeGateway([{ task: upscaled({ prompt: 'a lighthouse' }), archived: false }]);
    const { user } = renderTool(fake, '/dashboard/tools/midjourney?taskId=up-2');
    await user.click(await screen.findByRole('button', { name: 'Custom Zoom' }));
    const dialog = await screen.findByTestId('custom-zoom');
    const slider = within(dialog).getByRole('slider', { name: 'Zoom out' });
    expect(within(dialog).getByTestId('custom-zoom-ratio').textContent).toBe('2x');
    act(() => slider.focus());
    await user.keyboard('{ArrowLeft}');
    await waitFor(() => expect(within(dialog).getByTestId('custom-zoom-ratio').textContent).toBe('1.9x'));
    for (const expected of ['1.8x', '1.7x', '1.6x', '1.5x']) {
      await user.keyboard('{ArrowLeft}');
      await waitFor(() => expect(within(dialog).getByTestId('custom-zoom-ratio').textContent).toBe(expected));
    }
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Shape' }), '16:9');
    const prompt = within(dialog).getByRole('textbox', { name: 'Prompt' });
    await user.clear(prompt);
    await user.type(prompt, 'a lighthouse, wide bay');
    await user.click(within(dialog).getByRole('button', { name: 'Zoom Out' }));
    expect(fake.gateway.zoomOut).toHaveBeenCalledWith('up-2', 1.5, expect.any(String), { prompt: 'a lighthouse, wide bay', aspectRatio: '16:9' });
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
    await waitFor(() => expect(screen.queryByTestId('custom-zoom')).toBeNull());
    finishGrid(fake, 'task-100');
    expect(within(await screen.findByTestId('result-grid')).getAllByRole('img')).toHaveLength(4);
    expect(screen.getByTestId('task-view').dataset.taskType).toBe('outpaint-custom');
  });

  it('an archived upscale offers no edits (spec §6), only Favs and Download', async () => {
    const fake = fakeGateway([{ task: upscaled(), archived: true }]);
    renderTool(fake, '/dashboard/tools/midjourney?taskId=up-2');
    expect(await screen.findByTestId('result-single')).toBeTruthy();
    expect(screen.queryByTestId('image-edits')).toBeNull();
    for (const name of ['Pan left', 'Zoom Out 2x', 'Vary (Region)', 'Upscale (Creative)', 'Get Seed'])
      expect(screen.queryByRole('button', { name })).toBeNull();
    expect(screen.getByRole('button', { name: 'Download' })).toBeTruthy();
  });

  it('an enlargement (upscale-4x) is an end result: no edits', async () => {
    const fake = fakeGateway([{ task: upscaled({ type: 'upscale-4x' }), archived: false }]);
    renderTool(fake, '/dashboard/tools/midjourney?taskId=up-2');
    expect(await screen.findByTestId('result-single')).toBeTruthy();
    expect(screen.queryByTestId('image-edits')).toBeNull();
  });
});

describe('Vary (Region)', () => {
  async function openEditor(over: Partial<MidjourneyTask> = {}) {
    const fake = fakeGateway([{ task: upscaled(over), archived: false }]);
    const tools = renderTool(fake, '/dashboard/tools/midjourney?taskId=up-2');
    await tools.user.click(await screen.findByRole('button', { name: 'Vary (Region)' }));
    const editor = await screen.findByTestId('region-editor');
    const canvas = within(editor).getByTestId('region-canvas') as HTMLCanvasElement;
    // Shown at half size: 400×300 CSS pixels for the 800×600 picture.
    canvas.getBoundingClientRect = () => ({ left: 10, top: 20, width: 400, height: 300, right: 410, bottom: 320, x: 10, y: 20, toJSON: () => ({}) });
    return { fake, editor, canvas, ...tools };
  }

  it('refuses to send an empty region', async () => {
    const { fake, editor, user } = await openEditor();
    await user.click(within(editor).getByRole('button', { name: 'Vary Region' }));
    expect(within(editor).getByTestId('region-error').textContent).toBe(EMPTY_REGION_MESSAGE);
    expect(fake.gateway.varyRegion).not.toHaveBeenCalled();
  });

  it('a brush stroke becomes a PNG mask of the picture size, white where painted; the result is a 4-image grid', async () => {
    const { fake, editor, canvas, user } = await openEditor({ prompt: 'a lighthouse' });
    expect(canvas.width).toBe(800);
    expect(canvas.height).toBe(600);
    // Brush 6% of the shorter side (600 px): a 36 px wide stroke, from (100,100) to (300,100) in picture pixels.
    fireEvent.pointerDown(canvas, { clientX: 60, clientY: 70, button: 0, pointerId: 1 });
    fireEvent.pointerMove(canvas, { clientX: 110, clientY: 70, pointerId: 1 });
    fireEvent.pointerMove(canvas, { clientX: 160, clientY: 70, pointerId: 1 });
    fireEvent.pointerUp(canvas, { clientX: 160, clientY: 70, pointerId: 1 });
    expect(within(editor).getByTestId('region-status').textContent).toContain('1 area marked.');
    // Focus that came with the pointer shows no keyboard selection.
    act(() => canvas.focus());
    expect(within(editor).queryByTestId('region-selection')).toBeNull();
    const prompt = within(editor).getByRole('textbox', { name: 'Prompt for the region' }) as HTMLTextAreaElement;
    expect(prompt.value).toBe('a lighthouse');
    await user.type(prompt, ' with a red door');
    await user.click(within(editor).getByRole('button', { name: 'Vary Region' }));

    await waitFor(() => expect(fake.gateway.varyRegion).toHaveBeenCalledTimes(1));
    const [parent, mask, sentPrompt] = vi.mocked(fake.gateway.varyRegion).mock.calls[0]!;
    expect(parent).toBe('up-2');
    expect(sentPrompt).toBe('a lighthouse with a red door');
    const png = readMask(mask);
    expect([png.width, png.height]).toEqual([800, 600]);
    expect(png.at(200, 100)).toBe(255); // on the stroke
    expect(png.at(200, 115)).toBe(255); // within the brush radius (18 px)
    expect(png.at(200, 125)).toBe(0); // outside it
    expect(png.at(700, 500)).toBe(0);
    expect(png.white).toBeGreaterThan(200 * 30);
    expect(png.white).toBeLessThan(240 * 40);

    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
    await waitFor(() => expect(screen.queryByTestId('region-editor')).toBeNull());
    finishGrid(fake, 'task-100');
    expect(within(await screen.findByTestId('result-grid')).getAllByRole('img')).toHaveLength(4);
    expect(screen.getByTestId('task-view').dataset.taskType).toBe('inpaint');
  });

  it('the keyboard marks a rectangle: arrows move it, Shift+arrows resize it, Enter marks it; Undo and Clear take marks back', async () => {
    const { fake, editor, canvas, user } = await openEditor();
    act(() => canvas.focus());
    expect(await within(editor).findByTestId('region-selection')).toBeTruthy();
    // Starts as the middle half (200,150)–(600,450); right by 5% (40 px), then 5% (30 px) shorter.
    await user.keyboard('{ArrowRight}{Shift>}{ArrowUp}{/Shift}');
    expect(within(editor).getByTestId('region-status').textContent).toContain('Selection: 30% from the left, 25% from the top, 50% wide, 45% high.');
    await user.keyboard('{Enter}');
    expect(within(editor).getByTestId('region-status').textContent).toContain('1 area marked.');
    await user.keyboard('{ArrowDown}{Enter}');
    expect(within(editor).getByTestId('region-status').textContent).toContain('2 areas marked.');
    await user.click(within(editor).getByRole('button', { name: 'Undo' }));
    expect(within(editor).getByTestId('region-status').textContent).toContain('1 area marked.');
    await user.click(within(editor).getByRole('button', { name: 'Vary Region' }));
    await waitFor(() => expect(fake.gateway.varyRegion).toHaveBeenCalledTimes(1));
    const png = readMask(vi.mocked(fake.gateway.varyRegion).mock.calls[0]![1]);
    expect(png.white).toBe(400 * 270);
    expect(png.at(240, 150)).toBe(255);
    expect(png.at(639, 419)).toBe(255);
    expect(png.at(239, 150)).toBe(0);
    expect(png.at(240, 420)).toBe(0);
  });

  it('the Rectangle tool marks what the pointer drags over; Clear empties the region', async () => {
    const { fake, editor, canvas, user } = await openEditor();
    // The tool is a radio group: arrow keys move between Brush and Rectangle.
    act(() => within(editor).getByRole('radio', { name: 'Brush' }).focus());
    await user.keyboard('{ArrowRight}');
    await waitFor(() => expect((within(editor).getByRole('radio', { name: 'Rectangle' }) as HTMLInputElement).checked).toBe(true));
    const drag = () => {
      fireEvent.pointerDown(canvas, { clientX: 10, clientY: 20, button: 0, pointerId: 1 });
      fireEvent.pointerMove(canvas, { clientX: 60, clientY: 45, pointerId: 1 });
      fireEvent.pointerUp(canvas, { clientX: 60, clientY: 45, pointerId: 1 });
    };
    drag();
    expect(within(editor).getByTestId('region-status').textContent).toContain('1 area marked.');
    await user.click(within(editor).getByRole('button', { name: 'Clear' }));
    expect(within(editor).getByTestId('region-status').textContent).toContain('Nothing marked yet.');
    // A click without a drag marks nothing.
    fireEvent.pointerDown(canvas, { clientX: 100, clientY: 100, button: 0, pointerId: 1 });
    fireEvent.pointerUp(canvas, { clientX: 100, clientY: 100, pointerId: 1 });
    expect(within(editor).getByTestId('region-status').textContent).toContain('Nothing marked yet.');

    drag();
    await user.click(within(editor).getByRole('button', { name: 'Vary Region' }));
    await waitFor(() => expect(fake.gateway.varyRegion).toHaveBeenCalledTimes(1));
    // (0,0)–(50,25) CSS pixels over a picture shown at half size: (0,0)–(100,50) in its pixels.
    const png = readMask(vi.mocked(fake.gateway.varyRegion).mock.calls[0]![1]);
    expect(png.white).toBe(100 * 50);
    expect(png.at(0, 0)).toBe(255);
    expect(png.at(99, 49)).toBe(255);
    expect(png.at(100, 49)).toBe(0);
    expect(png.at(99, 50)).toBe(0);
  });
});

describe('Describe', () => {
  it('uploads the chosen picture, describes its URL, and each of the four prompts fills the prompt box', async () => {
    const fake = fakeGateway();
    const { user } = renderTool(fake);
    await user.click(screen.getByRole('tab', { name: 'Describe' }));
    const panel = screen.getByTestId('describe-panel');
    await user.upload(within(panel).getByLabelText('Image to describe'), png('cat.png'));
    expect(within(panel).getAllByTestId('describe-thumb')).toHaveLength(1);
    await user.click(within(panel).getByRole('button', { name: 'Describe' }));
    expect(fake.gateway.upload).toHaveBeenCalledWith(expect.objectContaining({ name: 'cat.png' }));
    await waitFor(() => expect(fake.gateway.describe).toHaveBeenCalledWith('http://localhost:8080/media/upload-cat.png', expect.any(String)));
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
    expect(await screen.findByTestId('task-progress')).toBeTruthy();
    expect(within(panel).queryAllByTestId('describe-thumb')).toHaveLength(0);

    const prompts = ['a cat on a sofa', 'a tabby cat, studio light', 'cozy living room, cat', 'a sleepy cat --ar 1:1'];
    act(() => fake.update('task-100', { status: 'finished', percentage: 100, result: { prompts } }));
    const choices = await screen.findByTestId('prompt-choices');
    expect(
      within(choices)
        .getAllByTestId('prompt-choice')
        .map((c) => c.textContent),
    ).toEqual(prompts.map((p, i) => `${i + 1}.${p}Use this prompt`));
    expect((within(choices).getByTestId('described-image') as HTMLImageElement).src).toBe('http://localhost:8080/media/upload-cat.png');
    expect(screen.queryByTestId('result-grid')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Get Seed' })).toBeNull();

    await user.click(within(choices).getAllByRole('button', { name: 'Use this prompt' })[2]!);
    const box = screen.getByRole('textbox', { name: 'Prompt' }) as HTMLTextAreaElement;
    expect(box.value).toBe('cozy living room, cat');
    expect(screen.getByRole('tab', { name: 'Imagine' }).getAttribute('aria-selected')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(box));
  });

  it('asks for a picture first and refuses a type other than jpeg, png, gif or webp', async () => {
    const fake = fakeGateway();
    const { user } = renderTool(fake);
    await user.click(screen.getByRole('tab', { name: 'Describe' }));
    const panel = screen.getByTestId('describe-panel');
    await user.click(within(panel).getByRole('button', { name: 'Describe' }));
    expect(within(panel).getByTestId('describe-error').textContent).toBe('Choose an image to describe.');
    await userEvent
      .setup({ applyAccept: false })
      .upload(within(panel).getByLabelText('Image to describe'), new File(['x'], 'a.svg', { type: 'image/svg+xml' }));
    expect(within(panel).getByTestId('describe-error').textContent).toBe(UNSUPPORTED_IMAGE_MESSAGE);
    expect(fake.gateway.upload).not.toHaveBeenCalled();
    expect(fake.gateway.describe).not.toHaveBeenCalled();
  });
});

describe('Blend', () => {
  it('takes 2 to 5 uploads and a shape, sends {image_urls, dimension}, and shows a 4-image grid', async () => {
    const fake = fakeGateway();
    const { user } = renderTool(fake);
    await user.click(screen.getByRole('tab', { name: 'Blend' }));
    const panel = screen.getByTestId('blend-panel');
    const input = within(panel).getByLabelText('Images to blend');
    await user.upload(input, png('a.png'));
    await user.click(within(panel).getByRole('button', { name: 'Blend' }));
    expect(within(panel).getByTestId('blend-error').textContent).toBe(BLEND_COUNT_MESSAGE);
    expect(fake.gateway.blend).not.toHaveBeenCalled();

    await user.upload(
      input,
      ['b', 'c', 'd', 'e', 'f'].map((n) => png(`${n}.png`)),
    );
    expect(within(panel).getAllByTestId('blend-thumb')).toHaveLength(5);
    expect(within(panel).getByTestId('blend-error').textContent).toBe(BLEND_COUNT_MESSAGE);
    await user.click(within(panel).getByRole('button', { name: 'Remove c.png' }));
    expect(within(panel).getByTestId('blend-count').textContent).toBe('4 of 5');
    await user.click(within(panel).getByRole('radio', { name: 'Landscape' }));
    await user.click(within(panel).getByRole('button', { name: 'Blend' }));

    await waitFor(() => expect(fake.gateway.blend).toHaveBeenCalledTimes(1));
    expect(fake.gateway.blend).toHaveBeenCalledWith(
      ['a', 'b', 'd', 'e'].map((n) => `http://localhost:8080/media/upload-${n}.png`),
      'landscape',
      expect.any(String),
    );
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
    finishGrid(fake, 'task-100');
    expect(within(await screen.findByTestId('result-grid')).getAllByRole('img')).toHaveLength(4);
    expect(screen.getByTestId('task-view').dataset.taskType).toBe('blend');
  });

  it('a refused upload starts no blend and keeps the chosen pictures', async () => {
    const fake = fakeGateway();
    vi.mocked(fake.gateway.upload).mockRejectedValueOnce(new Error('Upload refused'));
    const { user } = renderTool(fake);
    await user.click(screen.getByRole('tab', { name: 'Blend' }));
    const panel = screen.getByTestId('blend-panel');
    await user.upload(within(panel).getByLabelText('Images to blend'), [png('a.png'), png('b.png')]);
    await user.click(within(panel).getByRole('button', { name: 'Blend' }));
    await waitFor(() => expect((within(panel).getByRole('button', { name: 'Blend' }) as HTMLButtonElement).disabled).toBe(false));
    expect(fake.gateway.blend).not.toHaveBeenCalled();
    expect(within(panel).getAllByTestId('blend-thumb')).toHaveLength(2);
    expect(taskIdInUrl()).toBeNull();
  });
});

describe('Shorten', () => {
  it('refuses an empty prompt, then offers the shorter prompts to pick from', async () => {
    const fake = fakeGateway();
    const { user } = renderTool(fake);
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    expect(screen.getByTestId('prompt-error').textContent).toBe(EMPTY_SHORTEN_MESSAGE);
    expect(fake.gateway.shorten).not.toHaveBeenCalled();

    const box = screen.getByRole('textbox', { name: 'Prompt' }) as HTMLTextAreaElement;
    await user.click(box);
    await user.paste('  a very long prompt about a lighthouse on a cliff at dawn  ');
    await user.click(screen.getByRole('button', { name: 'Shorten' }));
    expect(fake.gateway.shorten).toHaveBeenCalledWith('a very long prompt about a lighthouse on a cliff at dawn', expect.any(String));
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
    act(() => fake.update('task-100', { status: 'finished', percentage: 100, result: { prompts: ['lighthouse, cliff, dawn', 'lighthouse at dawn'] } }));
    const choices = await screen.findByTestId('prompt-choices');
    expect(within(choices).getByText('Shorter prompts')).toBeTruthy();
    await user.click(within(choices).getAllByRole('button', { name: 'Use this prompt' })[1]!);
    expect(box.value).toBe('lighthouse at dawn');
  });
});
