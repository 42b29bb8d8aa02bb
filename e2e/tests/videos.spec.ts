import { expect, test } from '@playwright/test';
import { screenshot } from '../support/journeys.ts';
import { readTaskRow, submitTask, waitForTerminal } from '../support/tasks.ts';
import { applyCredit, createUser, signIn } from '../support/users.ts';

test.describe('the Videos gallery', () => {
  test('videos made with the API play in the gallery: the browser reads their duration and playback advances; tabs, favourites and downloads work', async ({
    context,
    page,
  }) => {
    test.setTimeout(150_000);
    const user = await createUser('videos', { onboarded: true });
    await applyCredit(user.id, 1_000, 'e2e credits for the videos journey');
    const key = user.row.api_key;
    // the local video engine: real H.264 MP4s of simulated content
    const lumaId = await submitTask(key, '/luma-imagine', { prompt: 'a lighthouse on a cliff at sunset, waves', aspect_ratio: '16:9' });
    expect((await waitForTerminal(key, lumaId, 90_000)).status).toBe('finished');
    const klingId = await submitTask(key, '/kling-imagine', { prompt: 'a red fox in fresh snow', duration: 5 });
    expect((await waitForTerminal(key, klingId, 90_000)).status).toBe('finished');

    await signIn(context, user);
    await page.goto('/dashboard/assets/videos');
    await expect(page.getByRole('heading', { level: 1, name: 'Videos' })).toBeVisible();
    const cards = page.getByTestId('media-card');
    await expect(cards).toHaveCount(2);
    expect(await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-task-id')))).toEqual([klingId, lumaId]);

    // the Luma card's player: the poster shows, the browser reads the MP4's duration, and it plays
    const lumaCard = page.locator(`[data-testid="media-card"][data-task-id="${lumaId}"]`);
    const video = lumaCard.locator('video');
    await expect(video).toHaveAttribute('poster', /-video-1-poster\.jpg$/);
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    const meta = await video.evaluate((v: HTMLVideoElement) => ({ duration: v.duration, width: v.videoWidth, height: v.videoHeight }));
    expect(meta).toEqual({ duration: 5, width: 640, height: 360 });
    await video.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play();
    });
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 15_000 }).toBeGreaterThan(0.5);
    expect(await video.evaluate((v: HTMLVideoElement) => v.error)).toBeNull();
    // seeking works (the API answers byte ranges)
    await video.evaluate((v: HTMLVideoElement) => {
      v.pause();
      v.currentTime = 4;
    });
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => !v.seeking && v.currentTime >= 3.9)).toBe(true);
    await screenshot(page, 'videos-gallery');

    // tabs
    await page.getByRole('tab', { name: 'Kling' }).click();
    await expect(cards).toHaveCount(1);
    await expect(cards.first()).toHaveAttribute('data-task-id', klingId);
    await page.getByRole('tab', { name: 'Runway' }).click();
    await expect(page.getByText('No videos match')).toBeVisible();
    await page.getByRole('tab', { name: 'Luma AI' }).click();
    await expect(cards).toHaveCount(1);
    await expect(cards.first()).toHaveAttribute('data-task-id', lumaId);

    // a favourite is stored and filters
    await cards.first().getByRole('button', { name: 'Add to favorites' }).click();
    await expect.poll(async () => (await readTaskRow(lumaId)).favorite).toBe(true);
    await page.getByRole('tab', { name: 'All' }).click();
    await page.getByTestId('media-filter').selectOption('Favorites');
    await expect(cards).toHaveCount(1);
    await expect(cards.first()).toHaveAttribute('data-task-id', lumaId);

    // the download is the MP4 itself
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      cards
        .first()
        .getByRole('button', { name: `Download ${lumaId}` })
        .click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${lumaId}.mp4`);
    const bytes = await (await download.createReadStream()).toArray();
    expect(Buffer.concat(bytes).subarray(4, 8).toString('latin1')).toBe('ftyp');

    // nothing archived yet
    await page.getByTestId('media-filter').selectOption('Everything');
    await page.getByText('Show Archive').click();
    await expect(page.getByText('No videos match')).toBeVisible();
  });
});
