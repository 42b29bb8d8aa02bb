import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page, test } from '@playwright/test';
import { formatCredits } from '../support/billing.ts';
import { screenshot } from '../support/journeys.ts';
import { nextTaskId, readCredits, readTaskRow } from '../support/tasks.ts';
import { applyCredit, createUser, signIn } from '../support/users.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const ARTIFACTS = path.resolve(here, '../artifacts');
// The face engine's own test portraits (public domain; provenance in that folder's README.md).
const FACES = path.resolve(here, '../../server/test/fixtures/faces');
const SOURCE_FACE = path.join(FACES, 'eileen-collins.jpg');
const TARGET_FACE = path.join(FACES, 'grace-hopper.jpg');
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47];
/** The catalog price of a faceswap (server/src/services/pricing/catalog.ts). */
const FACESWAP_PRICE = 2;

type TaskInputs = { input_data: { swap_image_url?: string; target_image_url?: string } | null };

/**
 * Records, from inside the page, every state the Result box shows (`data-view`, the spinner's
 * reason, the percentage), however briefly: the local engine can finish faster than a poll from
 * the test would notice.
 */
async function recordResultViews(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __faceswapViews: string[] }).__faceswapViews = seen;
    const capture = () => {
      const box = document.querySelector<HTMLElement>('[data-testid="result-box"]');
      if (!box) return;
      const reason = box.querySelector<HTMLElement>('[data-testid="result-spinner"]')?.dataset.reason;
      const percentage = box.querySelector('[data-testid="task-percentage"]')?.textContent;
      const entry = [box.dataset.view, reason, percentage].filter(Boolean).join(' ');
      if (seen.at(-1) !== entry) seen.push(entry);
    };
    new MutationObserver(capture).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { __faceswapViews?: string[] }).__faceswapViews ?? []);
}

test.describe('the Faceswap screen', () => {
  test('a user swaps a face between two photos, watches it run, downloads the result and reopens it from the Images gallery', async ({ context, page }) => {
    test.setTimeout(120_000);
    const user = await createUser('swapper', { onboarded: true });
    await applyCredit(user.id, 100, 'e2e credits for the faceswap journey');
    const start = await readCredits(user.id);
    await signIn(context, user);
    const shownViews = await recordResultViews(page);

    await page.goto('/dashboard/tools/faceswap');
    await expect(page.getByRole('heading', { level: 1, name: 'Faceswap' })).toBeVisible();
    await expect(page.getByTestId('credits-count')).toHaveText(formatCredits(start));
    const generate = page.getByRole('button', { name: 'Generate' });
    await expect(generate).toBeDisabled();

    // Both photos previewed and uploaded: Generate is enabled.
    await page.getByTestId('source-input').setInputFiles(SOURCE_FACE);
    await expect(page.getByTestId('source-preview')).toBeVisible();
    await expect(generate).toBeDisabled();
    await page.getByTestId('target-input').setInputFiles(TARGET_FACE);
    await expect(page.getByTestId('target-preview')).toBeVisible();
    await expect(generate).toBeEnabled();

    await generate.click();
    const taskId = await nextTaskId(page, null);
    const result = page.getByTestId('result-image');
    await expect(result).toBeVisible({ timeout: 60_000 });
    await expect.poll(() => result.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);

    // The spinner (and progress, when the engine reported some) came before the picture; progress never went back.
    const views = await shownViews();
    const imageAt = views.indexOf('image');
    expect(
      views.slice(0, imageAt).some((v) => v.startsWith('spinner')),
      `spinner before the result: ${JSON.stringify(views)}`,
    ).toBe(true);
    const percentages = views.map((v) => Number(/(\d+)%$/.exec(v)?.[1])).filter((n) => !Number.isNaN(n));
    expect(percentages, 'progress never goes backwards').toEqual([...percentages].sort((a, b) => a - b));

    const row = (await readTaskRow(taskId)) as Awaited<ReturnType<typeof readTaskRow>> & TaskInputs;
    expect(row).toMatchObject({ type: 'faceswap', status: 'finished', cost: FACESWAP_PRICE });
    await expect(result).toHaveAttribute('src', row.image_url!);
    // The top bar follows the mdusers row by itself.
    await expect(page.getByTestId('credits-count')).toHaveText(formatCredits(start - FACESWAP_PRICE));
    await screenshot(page, 'faceswap-result-dark');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download Result' }).click()]);
    expect(download.suggestedFilename()).toBe(`${taskId}.png`);
    const saved = path.join(ARTIFACTS, `download-${taskId}.png`);
    await download.saveAs(saved);
    expect([...(await readFile(saved)).subarray(0, 4)]).toEqual(PNG_MAGIC);

    // The Images gallery's Faceswap tab shows it; Open brings the task back to this screen.
    await page.getByTestId('sidebar').getByRole('link', { name: 'Images' }).click();
    await page.getByRole('tab', { name: 'Faceswap' }).click();
    const card = page.getByTestId('image-card');
    await expect(card).toHaveCount(1);
    await expect(card).toHaveAttribute('data-task-id', taskId);
    await card.getByRole('link', { name: 'Open' }).click();
    await expect(page).toHaveURL(new RegExp(`/dashboard/tools/faceswap\\?taskId=${taskId}$`));
    await expect(page.getByTestId('result-image')).toHaveAttribute('src', row.image_url!);
    await expect(page.getByTestId('source-preview')).toHaveAttribute('src', row.input_data!.swap_image_url!);
    await expect(page.getByTestId('target-preview')).toHaveAttribute('src', row.input_data!.target_image_url!);
    await page.getByTestId('theme-switch').selectOption('light');
    await screenshot(page, 'faceswap-reopened-light');

    // Clear All Data: both boxes, the task and its id go.
    await page.getByRole('button', { name: 'Clear All Data' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('taskId')).toBeNull();
    await expect(page.getByTestId('source-preview')).toBeHidden();
    await expect(generate).toBeDisabled();
  });
});
