import { expect, type Locator, type Page, test } from '@playwright/test';
import { expectMidjourney, screenshot } from '../support/journeys.ts';
import { API_URL } from '../support/platform.ts';
import { nextTaskId, readTaskRow } from '../support/tasks.ts';
import { applyCredit, createUser, signIn } from '../support/users.ts';

/** A picture task's result in the browser: its pictures have loaded (a real decoded image, not a broken link). */
async function expectPictures(result: Locator, count: number): Promise<void> {
  await expect(result).toBeVisible({ timeout: 60_000 });
  await expect(result.getByRole('img')).toHaveCount(count);
  for (const img of await result.getByRole('img').all()) await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
}

/** A full-page shot from the top (a scrolled full-page shot draws the fixed sidebar where the viewport was). */
async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, name);
}

/** Clicks an action and answers the id of the task it created (the URL follows it, spec §4). */
async function act(page: Page, previous: string, action: () => Promise<void>): Promise<string> {
  await action();
  const id = await nextTaskId(page, previous);
  await expect(page.getByTestId('task-view')).toHaveAttribute('data-task-id', id);
  return id;
}

test('a user upscales, pans, zooms out and varies a region of an image, then describes and blends uploads', async ({ context, page }) => {
  test.setTimeout(180_000);
  const user = await createUser('mj-actions', { onboarded: true });
  await applyCredit(user.id, 1_000, 'e2e credits for the Midjourney actions journey');
  await signIn(context, user);
  await page.goto('/dashboard/tools/midjourney');
  await expectMidjourney(page);
  const grid = page.getByTestId('result-grid');
  const single = page.getByTestId('result-single');

  // Imagine → a 4-image grid.
  await page.getByRole('textbox', { name: 'Prompt' }).fill('a lighthouse on a cliff at dawn');
  await page.getByRole('button', { name: 'Imagine' }).click();
  const imagineId = await nextTaskId(page, null);
  await expectPictures(grid, 4);

  // Upscale image 2 (spec §7: type creative) → one picture.
  const upscaleId = await act(page, imagineId, () => page.getByRole('button', { name: 'Upscale image 2' }).click());
  await expectPictures(single, 1);
  expect(await readTaskRow(upscaleId)).toMatchObject({ type: 'upscale-creative', parent_id: imagineId });
  await shot(page, 'midjourney-actions-upscaled-dark');

  // Pan left → a new grid (spec §4).
  const panId = await act(page, upscaleId, () => page.getByRole('button', { name: 'Pan left' }).click());
  await expectPictures(grid, 4);
  expect(await readTaskRow(panId)).toMatchObject({ type: 'pan-left', parent_id: upscaleId });

  // Back to the upscaled picture: Zoom Out 2x → a new grid.
  await page.goBack();
  await expectPictures(single, 1);
  const zoomId = await act(page, upscaleId, () => page.getByRole('button', { name: 'Zoom Out 2x' }).click());
  await expectPictures(grid, 4);
  expect(await readTaskRow(zoomId)).toMatchObject({ type: expect.stringMatching(/^outpaint-/), parent_id: upscaleId });

  // Back again: Vary (Region) with a brush stroke across the picture → a new grid.
  await page.goBack();
  await expectPictures(single, 1);
  await page.getByRole('button', { name: 'Vary (Region)' }).click();
  const editor = page.getByTestId('region-editor');
  const canvas = editor.getByTestId('region-canvas');
  await expect(canvas).toBeVisible();
  await expect.poll(() => canvas.evaluate((el: HTMLCanvasElement) => el.width)).toBeGreaterThan(0);
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.4);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.45, { steps: 8 });
  await page.mouse.move(box.x + box.width * 0.7, box.y + box.height * 0.5, { steps: 8 });
  await page.mouse.up();
  await expect(editor.getByTestId('region-status')).toContainText('1 area marked.');
  await shot(page, 'midjourney-actions-region-dark');
  const regionId = await act(page, upscaleId, () => editor.getByRole('button', { name: 'Vary Region' }).click());
  await expect(editor).toBeHidden();
  await expectPictures(grid, 4);
  expect(await readTaskRow(regionId)).toMatchObject({ type: 'inpaint', parent_id: upscaleId });

  // The task family beside the result: imagine → upscale → pan, zoom out, vary region (oldest first), this one marked.
  const family = page.getByRole('navigation', { name: 'Task family' });
  const nodes = family.getByTestId('lineage-node');
  await expect
    .poll(() => nodes.evaluateAll((els) => els.map((el) => el.getAttribute('data-task-id'))))
    .toEqual([imagineId, upscaleId, panId, zoomId, regionId]);
  await expect(family.locator('[aria-current="page"]')).toHaveAttribute('data-task-id', regionId);
  for (const img of await family.locator('img').all()) await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
  await shot(page, 'midjourney-lineage-dark');
  // the API says the same: POST /fetch answers parent_task_id and child_task_ids
  const lineage = (await (
    await fetch(`${API_URL}/fetch`, {
      method: 'POST',
      headers: { authorization: user.row.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ task_id: upscaleId }),
    })
  ).json()) as Record<string, unknown>;
  expect(lineage).toMatchObject({ parent_task_id: imagineId, child_task_ids: [panId, zoomId, regionId] });
  // keyboard: on the first task of the family, Enter opens it; Back returns
  await family.getByRole('link', { name: 'Imagine' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('task-view')).toHaveAttribute('data-task-id', imagineId);
  await expect(family.locator('[aria-current="page"]')).toHaveAttribute('data-task-id', imagineId);
  await expectPictures(grid, 4);
  await page.goBack();
  await expect(page.getByTestId('task-view')).toHaveAttribute('data-task-id', regionId);

  // Describe an uploaded picture (a cell of the first grid) → four prompts; one fills the prompt box. In the light theme from here.
  await page.getByTestId('theme-switch').selectOption('light');
  const cell = (await readTaskRow(imagineId)).image_urls![0]!;
  const picture = { mimeType: 'image/png', buffer: Buffer.from(await (await fetch(cell)).arrayBuffer()) };
  await page.getByRole('tab', { name: 'Describe' }).click();
  await page.getByLabel('Image to describe').setInputFiles({ name: 'lighthouse.png', ...picture });
  const describeId = await act(page, regionId, () => page.getByRole('button', { name: 'Describe', exact: true }).click());
  const choices = page.getByTestId('prompt-choices');
  await expect(choices.getByTestId('prompt-choice')).toHaveCount(4, { timeout: 60_000 });
  expect(await readTaskRow(describeId)).toMatchObject({ type: 'describe' });
  await shot(page, 'midjourney-actions-describe-light');
  const first = (await choices.getByTestId('prompt-choice').first().textContent())!.replace(/^1\./, '').replace(/Use this prompt$/, '');
  await choices.getByRole('button', { name: 'Use this prompt' }).first().click();
  await expect(page.getByRole('textbox', { name: 'Prompt' })).toHaveValue(first);
  await expect(page.getByRole('textbox', { name: 'Prompt' })).toBeFocused();

  // Blend two uploads → a new grid.
  const other = (await readTaskRow(imagineId)).image_urls![3]!;
  await page.getByRole('tab', { name: 'Blend' }).click();
  await page.getByLabel('Images to blend').setInputFiles([
    { name: 'one.png', ...picture },
    { name: 'two.png', mimeType: 'image/png', buffer: Buffer.from(await (await fetch(other)).arrayBuffer()) },
  ]);
  await page.getByText('Landscape', { exact: true }).click();
  const blendId = await act(page, describeId, () => page.getByRole('button', { name: 'Blend', exact: true }).click());
  await expectPictures(grid, 4);
  expect(await readTaskRow(blendId)).toMatchObject({ type: 'blend' });

  await page.getByRole('button', { name: 'More upscales of image 1' }).click();
  await expect(page.getByRole('menuitem', { name: 'Upscale (Subtle)' })).toBeVisible();
  await shot(page, 'midjourney-actions-blend-light');
});
