// @vitest-environment jsdom
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChakraProvider } from '@chakra-ui/react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { system } from '@aim/shared-kit/theme';
import { MidjourneyTool } from '../src/features/midjourney/midjourney-tool.tsx';
import { fakeGateway, makeTask } from './support/fake-gateway.ts';

// The whole screen renders in jsdom; on a shared 2-core machine a case can pass vitest's 5 s default.
vi.setConfig({ testTimeout: 20_000 });

let location = '';
function LocationProbe() {
  const loc = useLocation();
  location = loc.pathname + loc.search;
  return null;
}

function renderTool(fake: ReturnType<typeof fakeGateway>, url: string) {
  render(
    <ChakraProvider value={system}>
      <MemoryRouter initialEntries={[url]}>
        <MidjourneyTool gateway={fake.gateway} mode="embedded" notifyError={vi.fn()} seedDelayMs={0} />
        <LocationProbe />
      </MemoryRouter>
    </ChakraProvider>,
  );
  return userEvent.setup();
}

const taskIdInUrl = () => new URLSearchParams(location.split('?')[1] ?? '').get('taskId');
const single = (id: string) => ({ image_url: `http://x/${id}.png`, image_urls: [`http://x/${id}.png`] });

/** imagine → upscale#2 (→ pan-left running, inpaint failed, seed), variation-3 (archived) and a reroll. */
function family() {
  return fakeGateway([
    { task: makeTask({ id: 'grid' }), archived: false },
    { task: makeTask({ id: 'up2', type: 'upscale#2', parent_id: 'grid', ...single('up2') }), archived: false },
    { task: makeTask({ id: 'var3', type: 'variation-3', parent_id: 'grid' }), archived: true },
    {
      task: makeTask({ id: 'pan', type: 'pan-left', parent_id: 'up2', status: 'running', percentage: 40, image_url: null, image_urls: null }),
      archived: false,
    },
    {
      task: makeTask({ id: 'region', type: 'inpaint', parent_id: 'up2', status: 'failed', image_url: null, image_urls: null, result: { message: 'x' } }),
      archived: false,
    },
    { task: makeTask({ id: 'seed', type: 'seed', parent_id: 'up2', image_url: null, image_urls: null, seed: '42' }), archived: false },
    { task: makeTask({ id: 'reroll', type: 'reroll', parent_id: 'grid' }), archived: false },
  ]);
}

afterEach(cleanup);

describe('the task family beside the result', () => {
  it('shows the whole family as a tree of links, the task on screen marked aria-current', async () => {
    const fake = family();
    renderTool(fake, '/dashboard/tools/midjourney?taskId=up2');
    const nav = await screen.findByRole('navigation', { name: 'Task family' });
    await waitFor(() => expect(within(nav).getAllByRole('link')).toHaveLength(6));
    expect(fake.gateway.readLineage).toHaveBeenCalledWith('up2');
    // in tree order, each named by the action that made it (and its state when not plainly finished); no seed
    expect(
      within(nav)
        .getAllByRole('link')
        .map((l) => l.textContent),
    ).toEqual(['Imagine', 'Upscale 2', 'Pan leftPan leftrunning', 'Vary (Region)Vary (Region)failed', 'Variation 3archived', 'Reroll']);
    const current = within(nav).getByRole('link', { current: 'page' });
    expect(current.dataset.taskId).toBe('up2');
    expect(
      within(nav)
        .getAllByRole('link')
        .filter((l) => l.getAttribute('aria-current')),
    ).toHaveLength(1);
    // nesting: up2's children are in a list inside its item
    const up2Item = current.closest('li')!;
    expect(
      within(up2Item)
        .getAllByRole('link')
        .map((l) => l.dataset.taskId),
    ).toEqual(['up2', 'pan', 'region']);
    // finished tasks show their picture (decorative: the link names it), the running and failed ones a placeholder with the action name
    expect([...nav.querySelectorAll('img')].map((img) => [img.getAttribute('src'), img.getAttribute('alt')])).toEqual([
      ['http://localhost:8080/media/grid.png', ''],
      ['http://x/up2.png', ''],
      ['http://localhost:8080/media/var3.png', ''],
      ['http://localhost:8080/media/reroll.png', ''],
    ]);
    expect(
      within(nav)
        .getAllByTestId('lineage-placeholder')
        .map((p) => p.textContent),
    ).toEqual(['Pan left', 'Vary (Region)']);
  });

  it('opens a task of the family by click or by keyboard, and the marker follows', async () => {
    const fake = family();
    const user = renderTool(fake, '/dashboard/tools/midjourney?taskId=up2');
    const nav = await screen.findByRole('navigation', { name: 'Task family' });
    await user.click(await within(nav).findByRole('link', { name: 'Imagine' }));
    await waitFor(() => expect(taskIdInUrl()).toBe('grid'));
    await waitFor(() => expect(screen.getByTestId('task-view').dataset.taskId).toBe('grid'));
    await waitFor(() =>
      expect(within(screen.getByRole('navigation', { name: 'Task family' })).getByRole('link', { current: 'page' }).dataset.taskId).toBe('grid'),
    );

    // keyboard: Tab reaches the links, Enter opens one
    const reroll = within(screen.getByRole('navigation', { name: 'Task family' })).getByRole('link', { name: 'Reroll' });
    reroll.focus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(taskIdInUrl()).toBe('reroll'));
    await waitFor(() => expect(screen.getByTestId('task-view').dataset.taskType).toBe('reroll'));
    expect(within(screen.getByRole('navigation', { name: 'Task family' })).getByRole('link', { current: 'page' }).dataset.taskId).toBe('reroll');
  });

  it('adds a new follow-up to the family, and shows its picture once it finishes', async () => {
    const fake = fakeGateway([{ task: makeTask({ id: 'grid' }), archived: false }]);
    const user = renderTool(fake, '/dashboard/tools/midjourney?taskId=grid');
    // alone, the family says what will appear
    expect(await screen.findByTestId('lineage-empty')).toBeTruthy();
    await user.click(await screen.findByRole('button', { name: 'Upscale image 1' }));
    await waitFor(() => expect(taskIdInUrl()).toBe('task-100'));
    const nav = screen.getByRole('navigation', { name: 'Task family' });
    await waitFor(() => expect(within(nav).getByRole('link', { current: 'page' }).textContent).toBe('Upscale (Creative)Upscale (Creative)pending'));
    act(() => fake.update('task-100', { status: 'finished', percentage: 100, ...single('task-100') }));
    await waitFor(() => expect(within(nav).getByRole('link', { current: 'page' }).textContent).toBe('Upscale (Creative)'));
    expect(within(nav).getByRole('link', { current: 'page' }).querySelector('img')?.getAttribute('src')).toBe('http://x/task-100.png');
    expect(within(nav).getByRole('link', { name: 'Imagine' })).toBeTruthy();
  });

  it('shows loading, then an error with Try again that reads the family again', async () => {
    const fake = family();
    let fail = true;
    const waiting: (() => void)[] = [];
    const releaseAll = () => {
      for (const resolve of waiting.splice(0)) resolve();
    };
    const real = fake.gateway.readLineage;
    fake.gateway.readLineage = vi.fn(async (id: string) => {
      await new Promise<void>((resolve) => waiting.push(resolve));
      if (fail) throw new Error('network');
      return real(id);
    });
    const user = renderTool(fake, '/dashboard/tools/midjourney?taskId=grid');
    expect(await screen.findByTestId('lineage-loading')).toBeTruthy();
    await waitFor(() => expect(waiting).toHaveLength(1));
    act(() => releaseAll());
    expect(await screen.findByText('The family of this task could not be loaded.')).toBeTruthy();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByTestId('lineage-loading')).toBeTruthy();
    await waitFor(() => expect(waiting).toHaveLength(1));
    act(() => releaseAll());
    const nav = screen.getByRole('navigation', { name: 'Task family' });
    await waitFor(() => expect(within(nav).getAllByRole('link')).toHaveLength(6));
  });
});
