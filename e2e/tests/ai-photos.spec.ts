import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
// The evaluation set of real photos (server/test/fixtures/face-eval, CC BY 4.0: see its README).
import { evalPeople, variant } from '../../server/test/support/face-eval.ts';
import { screenshot } from '../support/journeys.ts';
import { chooseCard } from '../support/onboarding.ts';
import { nextTaskId, readTaskRow, taskIdOf } from '../support/tasks.ts';
import { applyCredit, createUser, signIn } from '../support/users.ts';

/** Catalog prices: upload 2, training 4 a photo kept, generation 1 a photo (server/src/services/pricing/catalog.ts). */
const CREDITS = 2 + 4 * 10 + 4;
const TRIGGER_WORD = 'lisadeb';

const panel = (page: Page) => page.getByTestId('wizard-panel');

/**
 * Real photos of one woman from two sessions: her 8 in the evaluation set, and (it has no more of
 * her; the screen asks for 10) two of them again, cut, turned and re-exposed, so other files.
 */
async function writeEvaluationPhotos(folder: string): Promise<string[]> {
  const [lisa] = await evalPeople(['debruine-lisa']);
  const photos = [...lisa.photos, await variant(lisa.photos[1], 0), await variant(lisa.photos[5], 1)];
  return Promise.all(
    photos.map(async (data, i) => {
      const file = path.join(folder, `lisa-${i + 1}.jpg`);
      await writeFile(file, data);
      return file;
    }),
  );
}

test.describe('the AI Photos screen', () => {
  test('a new user comes from the onboarding, uploads 10 real photos of one woman from two sessions, trains a model, generates 4 photos on portraits of women and finds them in the Images gallery', async ({
    context,
    page,
  }) => {
    test.setTimeout(240_000);
    const folder = await mkdtemp(path.join(os.tmpdir(), 'ai-photos-e2e-'));
    try {
      const files = await writeEvaluationPhotos(folder);
      const user = await createUser('aiphotos');
      await applyCredit(user.id, CREDITS + 10, 'e2e credits for the AI Photos journey');
      await signIn(context, user);

      // The onboarding's ai-photo path lands on step 1, ready to start.
      await page.goto('/welcome');
      await chooseCard(page, 'Try AI Photo API');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('button', { name: 'Upload photos' }).click();
      await expect(page).toHaveURL(/\/dashboard\/tools\/ai-photos$/);
      await expect(page.getByTestId('wizard-step-prepare')).toHaveAttribute('aria-current', 'step');
      await expect(panel(page)).toHaveAttribute('data-view', 'prepare');

      // Step 1: 10 photos, who they show, Upload photos.
      await page.getByTestId('photo-input').setInputFiles(files);
      await expect(page.getByTestId('photo-thumb')).toHaveCount(10);
      await expect(page.getByTestId('photo-count')).toHaveText('10 of 30 photos selected');
      await page.getByText('Female', { exact: true }).click();
      await page.getByLabel('Ethnicity').selectOption('white');
      await page.getByLabel('Age').fill('38');
      await page.getByRole('button', { name: 'Upload photos' }).click();
      const uploadId = await nextTaskId(page, null);
      expect((await readTaskRow(uploadId)).type).toBe('ai-photo-upload');

      // Step 2 once the check has finished: its verdicts, then the trigger word.
      await expect(panel(page)).toHaveAttribute('data-view', 'train', { timeout: 60_000 });
      await expect(page.getByTestId('wizard-step-prepare')).toHaveAttribute('data-state', 'done');
      await expect(page.getByTestId('photo-verdicts')).toBeVisible();
      await page.getByTestId('trigger-word-input').fill('ohwx');
      await page.getByRole('button', { name: 'Train model' }).click();
      await expect(page.getByTestId('trigger-word-error')).toHaveText('Trigger word must be 6–12 characters');
      await page.getByTestId('trigger-word-input').fill(TRIGGER_WORD);
      await page.getByTestId('trigger-word-input').press('Enter');
      const trainId = await nextTaskId(page, uploadId);
      expect((await readTaskRow(trainId)).type).toBe('ai-photo-train');

      // Step 3 once the model is trained: a prompt, Generate, four photos with the server's label.
      await expect(panel(page)).toHaveAttribute('data-view', 'generate', { timeout: 90_000 });
      await expect(page.getByTestId('trigger-word')).toHaveText(`Trigger word: ${TRIGGER_WORD}`);
      await page.getByRole('button', { name: 'a vintage studio photo' }).click();
      await page.getByRole('button', { name: 'Generate 4 photos' }).click();
      const generateId = await nextTaskId(page, trainId);
      await expect(panel(page)).toHaveAttribute('data-view', 'photos', { timeout: 90_000 });
      const shown = page.getByTestId('generated-photo').getByRole('img');
      await expect(shown).toHaveCount(4);
      for (const img of await shown.all()) await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
      const row = await readTaskRow(generateId);
      expect(row).toMatchObject({ type: 'ai-photo-generate', status: 'finished' });
      expect(row.image_urls).toHaveLength(4);
      expect(await shown.evaluateAll((imgs) => imgs.map((img) => img.getAttribute('src')))).toEqual(row.image_urls);
      // Four different women's portraits, as asked for a woman (the engine records each template's tags).
      const { generation } = row.result as { generation: { templates: { gender: string; id: string }[] } };
      expect(generation.templates.map((t) => t.gender)).toEqual(['female', 'female', 'female', 'female']);
      expect(new Set(generation.templates.map((t) => t.id)).size).toBe(4);
      // The local engine says what its photos are; the screen shows that label beside them.
      await expect(page.getByTestId('result-note')).toHaveText((row.result as { note: string }).note);
      await expect(page.getByTestId('task-list-item').filter({ has: page.getByRole('button', { name: 'Generate', exact: true }) })).toHaveAttribute(
        'data-task-id',
        trainId,
      );
      await screenshot(page, 'ai-photos-generated-dark');

      // The Images gallery's AI Photos tab shows the generation (not the upload or the training); Open brings it back.
      await page.getByTestId('sidebar').getByRole('link', { name: 'Images' }).click();
      await page.getByRole('tab', { name: 'AI Photos' }).click();
      const card = page.getByTestId('image-card');
      await expect(card).toHaveCount(1);
      await expect(card).toHaveAttribute('data-task-id', generateId);
      await expect(card.getByRole('img')).toHaveAttribute('src', row.image_url!);
      await card.getByRole('link', { name: 'Open' }).click();
      await expect(page).toHaveURL(new RegExp(`/dashboard/tools/ai-photos\\?taskId=${generateId}$`));
      expect(taskIdOf(page)).toBe(generateId);
      await expect(page.getByTestId('generated-photo').getByRole('img')).toHaveCount(4);
      await page.getByTestId('theme-switch').selectOption('light');
      await screenshot(page, 'ai-photos-reopened-light');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
