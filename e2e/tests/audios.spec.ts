import { expect, test } from '@playwright/test';
import { screenshot } from '../support/journeys.ts';
import { submitTask, waitForTerminal } from '../support/tasks.ts';
import { applyCredit, createUser, signIn } from '../support/users.ts';

test.describe('the Audios gallery', () => {
  test('a song made through the API plays in the Audios gallery, with its cover and lyrics', async ({ context, page }) => {
    test.setTimeout(180_000);
    const user = await createUser('songs', { onboarded: true });
    await applyCredit(user.id, 100, 'e2e credits for the audio journey');
    // the user's API key, as an integration would call it (v1 path and parameters)
    const taskId = await submitTask(user.row.api_key, '/suno-imagine', { prompt: 'a bright folk song about the sea', title: 'Sea Song' });
    expect(['finished', 'success']).toContain((await waitForTerminal(user.row.api_key, taskId, 150_000)).status);

    await signIn(context, user);
    await page.goto('/dashboard/assets/audio');
    await expect(page.getByRole('heading', { level: 1, name: 'Audios' })).toBeVisible();
    const card = page.locator(`[data-testid="media-card"][data-task-id="${taskId}"]`);
    await expect(card.getByTestId('song')).toHaveCount(2);
    await expect(card.getByText('Sea Song').first()).toBeVisible();
    // the cover is really served
    const cover = card.getByRole('img', { name: 'Cover of Sea Song' }).first();
    await expect.poll(() => cover.evaluate((e) => (e as HTMLImageElement).naturalWidth)).toBe(640);
    await card.getByText('Lyrics').first().click();
    await expect(card.getByText('[Simulated lyrics', { exact: false }).first()).toBeVisible();

    // the first song plays: the element learns its length, and time moves on
    const audio = card.getByLabel('Song 1', { exact: true });
    await audio.evaluate((el) => {
      const player = el as HTMLAudioElement;
      // muted, so Chromium's autoplay policy lets a script start it
      player.muted = true;
      return player.play();
    });
    await expect.poll(() => audio.evaluate((el) => (el as HTMLAudioElement).duration)).toBeGreaterThan(20);
    await expect.poll(() => audio.evaluate((el) => (el as HTMLAudioElement).currentTime), { timeout: 15_000 }).toBeGreaterThan(0.5);
    expect(await audio.evaluate((el) => (el as HTMLAudioElement).error)).toBeNull();
    await screenshot(page, 'audios-gallery');
  });
});
