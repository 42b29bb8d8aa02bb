import { expect, test } from '@playwright/test';
import { screenshot } from '../support/journeys.ts';
import { readTaskRow, submitTask, waitForTerminal } from '../support/tasks.ts';
import { applyCredit, createUser, signIn } from '../support/users.ts';

test.describe('the galleries', () => {
  test('pictures made with the API appear newest first; filters, search, favourites and reopening in the tool work', async ({ context, page }) => {
    test.setTimeout(120_000);
    const user = await createUser('gallery', { onboarded: true });
    await applyCredit(user.id, 1_000, 'e2e credits for the gallery journey');
    const key = user.row.api_key;
    const imagineId = await submitTask(key, '/pro/imagine', { prompt: 'a lighthouse at dawn' });
    expect((await waitForTerminal(key, imagineId)).status).toBe('finished');
    const fluxId = await submitTask(key, '/flux/imagine', { prompt: 'a fox in the snow' });
    expect((await waitForTerminal(key, fluxId)).status).toBe('finished');
    const upscaleId = await submitTask(key, '/pro/upscale', { parent_task_id: imagineId, index: 2, type: '2x' });
    expect((await waitForTerminal(key, upscaleId)).status).toBe('finished');

    await signIn(context, user);
    await page.goto('/dashboard/assets/images');
    await expect(page.getByRole('heading', { level: 1, name: 'Images' })).toBeVisible();
    const cards = page.getByTestId('image-card');
    await expect(cards).toHaveCount(3);
    expect(await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-task-id')))).toEqual([upscaleId, fluxId, imagineId]);
    // every picture is really served
    for (const img of await page.getByTestId('image-card').getByRole('img').all()) {
      await expect.poll(() => img.evaluate((e) => (e as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    }
    await screenshot(page, 'images-gallery');

    await page.getByTestId('image-filter').selectOption('Upscales');
    await expect(cards).toHaveCount(1);
    await expect(cards.first()).toHaveAttribute('data-task-id', upscaleId);
    await page.getByTestId('image-filter').selectOption('Everything');
    await page.getByRole('tab', { name: 'Flux' }).click();
    await expect(cards).toHaveCount(1);
    await expect(cards.first()).toHaveAttribute('data-task-id', fluxId);
    await page.getByRole('tab', { name: 'All' }).click();
    await page.getByTestId('image-search').fill('fox');
    await expect(cards).toHaveCount(1);
    await page.getByTestId('image-search').fill('');
    await expect(cards).toHaveCount(3);

    // a favourite is stored, and survives a reload
    const imagineCard = page.locator(`[data-testid="image-card"][data-task-id="${imagineId}"]`);
    await imagineCard.getByRole('button', { name: 'Add to favorites' }).click();
    await expect(imagineCard.getByRole('button', { name: 'Remove from favorites' })).toBeVisible();
    await expect.poll(async () => (await readTaskRow(imagineId)).favorite).toBe(true);
    await page.reload();
    await page.getByTestId('image-filter').selectOption('Favorites');
    await expect(cards).toHaveCount(1);
    await expect(cards.first()).toHaveAttribute('data-task-id', imagineId);

    // nothing archived yet
    await page.getByText('Show Archive').click();
    await expect(page.getByText('No pictures match')).toBeVisible();
    await page.getByText('Show Archive').click();

    // Open reopens the task in the Midjourney tool
    await expect(cards).toHaveCount(1);
    await cards.first().getByRole('link', { name: 'Open' }).click();
    await expect(page).toHaveURL(new RegExp(`/dashboard/tools/midjourney\\?taskId=${imagineId}$`));
    await expect(page.getByTestId('screen-midjourney')).toBeVisible();
  });

  test('the Videos and Audios galleries show their tabs and say when there is nothing yet', async ({ context, page }) => {
    const user = await createUser('listener', { onboarded: true });
    await signIn(context, user);
    await page.goto('/dashboard/assets/videos');
    await expect(page.getByRole('heading', { level: 1, name: 'Videos' })).toBeVisible();
    await expect(page.getByRole('tab')).toHaveText(['All', 'Luma AI', 'Kling', 'Runway']);
    await expect(page.getByText('No videos yet')).toBeVisible();
    await expect(page.getByText('Show Archive')).toBeVisible();
    await page.getByRole('tab', { name: 'Kling' }).click();
    await expect(page.getByText('No videos match')).toBeVisible();

    await page.getByTestId('sidebar').getByRole('link', { name: 'Images' }).click();
    await expect(page).toHaveURL(/\/dashboard\/assets\/images$/);
    await expect(page.getByText('No pictures yet')).toBeVisible();

    await page.goto('/dashboard/assets/audio');
    await expect(page.getByRole('heading', { level: 1, name: 'Audios' })).toBeVisible();
    await expect(page.getByRole('tab')).toHaveText(['All', 'Suno', 'Udio']);
    await expect(page.getByText('No songs yet')).toBeVisible();
    await expect(page.getByText('Show Archive')).toHaveCount(0);
  });
});
