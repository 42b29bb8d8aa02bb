import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { API_URL } from '../support/platform.ts';
import { expectMidjourney, screenshot } from '../support/journeys.ts';
import {
  countRealtimeTaskUpdates,
  imagineEndpointIsServed,
  nextTaskId,
  readCredits,
  readTaskRow,
  recordShownStates,
  submitTask,
  waitForTerminal,
} from '../support/tasks.ts';
import { applyCredit, createUser, signIn } from '../support/users.ts';

const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../artifacts');
const ACTIVE = ['staged', 'pending', 'processing', 'queued', 'submitted', 'starting', 'running'];
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47];

test.describe('the Midjourney tool', () => {
  test.beforeAll(async () => {
    expect(await imagineEndpointIsServed(), 'POST /pro/imagine is served by the launched platform').toBe(true);
  });

  test('a user with credits imagines, watches live progress, upscales, varies, favourites and downloads', async ({ context, page }) => {
    test.setTimeout(120_000);
    const user = await createUser('imaginer', { onboarded: true });
    await applyCredit(user.id, 1_000, 'e2e credits for the Midjourney journey');
    await signIn(context, user);
    const shownStates = await recordShownStates(page);
    const realtimeUpdates = countRealtimeTaskUpdates(page);

    await page.goto('/dashboard/tools/midjourney');
    await expectMidjourney(page);
    await expect(page.getByTestId('result-empty')).toBeVisible();

    // The prompt must be non-empty.
    const imagine = page.getByRole('button', { name: 'Imagine' });
    await expect(imagine).toBeEnabled();
    // Each action shows its price from the server's catalog (GET /pricing lists the same).
    const pricing = (await (await fetch(`${API_URL}/pricing`)).json()) as { actions: { type: string; credits: number }[] };
    const imaginePrice = pricing.actions.find((a) => a.type === 'imagine')?.credits;
    await expect(imagine.getByTestId('cost-imagine')).toHaveText(String(imaginePrice));
    await imagine.click();
    await expect(page.getByTestId('prompt-error')).toHaveText('Enter a prompt to imagine.');

    // Shift+Enter is a newline, Enter submits.
    const prompt = page.getByRole('textbox', { name: 'Prompt' });
    await prompt.fill('a lighthouse on a cliff');
    await prompt.press('Shift+Enter');
    await prompt.pressSequentially('at dawn, oil painting');
    await expect(prompt).toHaveValue('a lighthouse on a cliff\nat dawn, oil painting');
    await expect(page.getByTestId('prompt-error')).toBeHidden();
    await prompt.press('Enter');

    const imagineId = await nextTaskId(page, null);
    const grid = page.getByTestId('result-grid');
    await expect(grid).toBeVisible({ timeout: 60_000 });
    await expect(grid.getByRole('img')).toHaveCount(4);
    for (const img of await grid.getByRole('img').all()) await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);

    // Progress was shown while the task ran, and the result arrived live (realtime), not by reload.
    const states = (await shownStates()).filter((s) => s.taskId === imagineId);
    expect(
      states.some((s) => ACTIVE.includes(s.status) && s.percentage !== null),
      `active state with progress shown: ${JSON.stringify(states)}`,
    ).toBe(true);
    expect(states.at(-1)?.status).toBe('finished');
    const percentages = states.map((s) => Number.parseInt(s.percentage ?? '', 10)).filter((n) => !Number.isNaN(n));
    expect(percentages, 'progress never goes backwards').toEqual([...percentages].sort((a, b) => a - b));
    expect(realtimeUpdates(imagineId), 'UPDATEs of the task over realtime').toBeGreaterThan(0);
    const imagined = await readTaskRow(imagineId);
    expect(imagined).toMatchObject({ type: 'imagine', status: 'finished' });
    await screenshot(page, 'midjourney-grid-dark');

    // Upscale image 2: a new task, the URL follows it, one picture.
    await page.getByRole('button', { name: 'Upscale image 2' }).click();
    const upscaleId = await nextTaskId(page, imagineId);
    await expect(page.getByTestId('result-single')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('result-single').getByRole('img')).toHaveCount(1);
    // spec §7: the Upscale button sends {parent_task_id, index, type: 'creative'}
    expect(await readTaskRow(upscaleId)).toMatchObject({ type: 'upscale-creative', parent_id: imagineId });

    // Back to the grid: ?taskId= restores it; then a variation of image 1.
    await page.goBack();
    await expect.poll(() => new URL(page.url()).searchParams.get('taskId')).toBe(imagineId);
    await expect(grid.getByRole('img')).toHaveCount(4);
    await page.getByRole('button', { name: 'Variation of image 1' }).click();
    const variationId = await nextTaskId(page, imagineId);
    await expect(page.getByTestId('task-view')).toHaveAttribute('data-task-id', variationId);
    await expect(grid.getByRole('img')).toHaveCount(4, { timeout: 60_000 });
    expect(await readTaskRow(variationId)).toMatchObject({ type: 'variation-1', parent_id: imagineId });

    // Favourite it, and take it back out.
    await page.getByRole('button', { name: 'Add to Favs' }).click();
    await expect(page.getByRole('button', { name: 'Remove from Favs' })).toBeVisible();
    await expect.poll(async () => (await readTaskRow(variationId)).favorite).toBe(true);

    // Download saves the picture under the task id.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe(`${variationId}.png`);
    const saved = path.join(ARTIFACTS, `download-${variationId}.png`);
    await download.saveAs(saved);
    expect([...(await readFile(saved)).subarray(0, 4)]).toEqual(PNG_MAGIC);

    await page.getByRole('button', { name: 'Remove from Favs' }).click();
    await expect(page.getByRole('button', { name: 'Add to Favs' })).toBeVisible();
    await expect.poll(async () => (await readTaskRow(variationId)).favorite).toBe(false);

    // Get Seed shows the seed once /fetch of the seed task has it.
    await page.getByRole('button', { name: 'Get Seed' }).click();
    await expect(page.getByTestId('task-seed')).toHaveText(/^Seed: \S+$/, { timeout: 20_000 });

    // The grid in the light theme, for the record.
    await page.getByTestId('theme-switch').selectOption('light');
    // Full-page shots of a scrolled page draw the fixed sidebar where the viewport was.
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'midjourney-grid-light');
  });

  test("a failed task shows 'Task Failed' with its message, and its credits come back", async ({ context, page }) => {
    test.setTimeout(120_000);
    const user = await createUser('failer', { onboarded: true });
    await applyCredit(user.id, 1_000, 'e2e credits for the failure journey');
    await signIn(context, user);
    const key = user.row.api_key;
    // A real failure of the local engine: a 4x upscale of a 4x upscale exceeds its output limit
    // (4096×4096 pixels), so the worker fails the task and refunds it.
    const imagineId = await submitTask(key, '/pro/imagine', { prompt: 'a small red cube on a table' });
    expect((await waitForTerminal(key, imagineId)).status).toBe('finished');
    const largeId = await submitTask(key, '/pro/upscale', { parent_task_id: imagineId, index: 1, type: '4x' });
    expect((await waitForTerminal(key, largeId)).status).toBe('finished');
    const before = await readCredits(user.id);

    const failingId = await submitTask(key, '/pro/upscale', { parent_task_id: largeId, index: 1, type: '4x' });
    await page.goto(`/dashboard/tools/midjourney?taskId=${failingId}`);
    await expect(page.getByTestId('screen-midjourney')).toBeVisible();
    const failed = page.getByTestId('task-failed');
    await expect(failed).toBeVisible({ timeout: 60_000 });
    await expect(failed).toContainText('Task Failed');

    const row = await readTaskRow(failingId);
    expect(row.status).toBe('failed');
    expect(row.result?.message, 'the failure carries a message').toBeTruthy();
    await expect(page.getByTestId('task-failed-message')).toHaveText(row.result!.message!);
    expect(row.cost).toBeGreaterThan(0);
    expect(row.refund).toBe(row.cost);
    await expect(page.getByTestId('task-refund')).toHaveText(`${row.refund} credits were refunded.`);
    await expect.poll(() => readCredits(user.id), { message: 'the hold came back' }).toBe(before);
    await expect(page.getByRole('button', { name: 'Download' })).toBeHidden();
    await screenshot(page, 'midjourney-failed');
  });

  test("a task of another family is refused with 'This task is not a Midjourney task!'", async ({ context, page }) => {
    const user = await createUser('foreign', { onboarded: true });
    await applyCredit(user.id, 100, 'e2e credits');
    await signIn(context, user);
    const res = await fetch(`${API_URL}/flux/imagine`, {
      method: 'POST',
      headers: { authorization: user.row.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a red fox in the snow' }),
    });
    expect(res.status).toBe(200);
    const { task_id } = (await res.json()) as { task_id: string };
    await page.goto(`/dashboard/tools/midjourney?taskId=${task_id}`);
    await expect(page.getByTestId('toast-error')).toContainText('This task is not a Midjourney task!');
    await expect.poll(() => new URL(page.url()).searchParams.get('taskId')).toBeNull();
    await expect(page.getByTestId('result-empty')).toBeVisible();
  });
});
