import { expect, test, type Page } from '@playwright/test';
import { expectMidjourney, screenshot } from '../support/journeys.ts';
import { chooseCard, readOnboarded, readTasksOf, useTheme } from '../support/onboarding.ts';
import { readTaskRow, taskIdOf } from '../support/tasks.ts';
import { applyCredit, createUser, signIn, type TestUser } from '../support/users.ts';

const stepHeading = (page: Page) => page.getByRole('heading', { level: 2 });

/** A new user, signed in, on step 1 of the wizard. */
async function openWizard(page: Page, user: TestUser): Promise<void> {
  await signIn(page.context(), user);
  await page.goto('/welcome');
  await expect(page.getByTestId('screen-welcome')).toBeVisible();
  await expect(stepHeading(page)).toHaveText('Pick a goal');
  await expect(page.getByRole('radio', { name: 'Generate in Dashboard' })).toBeChecked();
  await expect(page.getByText('You can change this later.')).toBeVisible();
}

async function expectOnboarded(user: TestUser, onboarded = true): Promise<void> {
  await expect.poll(() => readOnboarded(user.id), { message: 'mdusers.onboarded' }).toBe(onboarded);
}

test.describe('the onboarding wizard', () => {
  test('api by keyboard: arrow keys pick the goal, Python and Fetch lead to the API Keys sample', async ({ context, page }) => {
    const user = await createUser('onb-api');
    await useTheme(context, 'dark');
    await openWizard(page, user);
    await screenshot(page, 'welcome-goal-dark');

    // Tab enters the radio group at the checked card; the arrow keys move the choice.
    await page.keyboard.press('Tab');
    await expect(page.getByRole('radio', { name: 'Generate in Dashboard' })).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(page.getByRole('radio', { name: 'Run an API test' })).toBeChecked();
    await expect(page.getByRole('radio', { name: 'Run an API test' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Continue' })).toBeFocused();
    await page.keyboard.press('Enter');

    await expect(stepHeading(page)).toHaveText('Setup');
    await expect(stepHeading(page)).toBeFocused();
    await expect(page.getByRole('radio', { name: 'Curl' })).toBeChecked();
    await chooseCard(page, 'Python');
    await chooseCard(page, 'Fetch the Result using /Fetch');
    await screenshot(page, 'welcome-setup-api-dark');
    await page.getByRole('button', { name: 'Generate sample' }).click();

    await expect(page).toHaveURL(/\/dashboard\/api-keys\?language=python&requestType=fetch$/);
    await expect(page.getByTestId('sidebar')).toBeVisible();
    await expectOnboarded(user);
  });

  test('ai-photo: the three steps, Back to step 1 and forward again, then AI Photos', async ({ context, page }) => {
    const user = await createUser('onb-photo');
    await useTheme(context, 'light');
    await openWizard(page, user);
    await screenshot(page, 'welcome-goal-light');

    await chooseCard(page, 'Try AI Photo API');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(stepHeading(page)).toHaveText('Setup');
    const steps = page.getByTestId('ai-photo-steps').getByRole('listitem');
    await expect(steps).toHaveCount(3);
    await expect(steps.nth(0)).toContainText('Upload 10–30 photos');
    await expect(steps.nth(1)).toContainText('Train a custom model');
    await expect(steps.nth(2)).toContainText('Generate');
    await screenshot(page, 'welcome-setup-ai-photo-light');

    await page.getByRole('button', { name: 'Back' }).click();
    await expect(stepHeading(page)).toHaveText('Pick a goal');
    await expect(page.getByRole('radio', { name: 'Try AI Photo API' })).toBeChecked();
    expect(await readOnboarded(user.id)).toBe(false);

    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Upload photos' }).click();
    await expect(page).toHaveURL(/\/dashboard\/tools\/ai-photos$/);
    await expect(page.getByTestId('screen-ai-photos')).toBeVisible();
    await expectOnboarded(user);
  });

  test('dashboard with credits: the template + style prompt becomes a task opened in the Midjourney tool', async ({ context, page }) => {
    const user = await createUser('onb-dash');
    await applyCredit(user.id, 1_000, 'e2e credits for the onboarding journey');
    await useTheme(context, 'dark');
    await openWizard(page, user);
    await page.getByRole('button', { name: 'Continue' }).click();

    await expect(page.getByRole('radio', { name: 'A beautiful sunset over a serene lake' })).toBeChecked();
    await expect(page.getByRole('radio', { name: 'Realistic' })).toBeChecked();
    await chooseCard(page, 'Minimal gradient logo');
    await chooseCard(page, 'Drawing');
    const prompt = 'Minimal gradient logo, drawing image, drawing style, drawing art';
    await expect(page.getByTestId('final-prompt')).toHaveText(prompt);
    await screenshot(page, 'welcome-setup-dashboard-dark');

    await page.getByRole('button', { name: 'Generate now' }).click();
    await expect(page).toHaveURL(/\/dashboard\/tools\/midjourney\?taskId=[0-9a-f-]{36}$/);
    await expect(page.getByTestId('screen-midjourney')).toBeVisible();
    const taskId = taskIdOf(page)!;
    expect(await readTaskRow(taskId)).toMatchObject({ type: 'imagine' });
    expect((await readTasksOf(user.email)).map((t) => t.prompt)).toEqual([prompt]);
    await expectOnboarded(user);
  });

  test('dashboard without credits: Not enough credits, with a way to get credits or go on without a task', async ({ context, page }) => {
    const user = await createUser('onb-broke');
    expect(user.row.credits).toBe(0);
    await useTheme(context, 'light');
    await openWizard(page, user);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Generate now' }).click();

    const notice = page.getByTestId('onboarding-no-credits');
    await expect(notice).toBeVisible();
    await expect(notice).toContainText('Not enough credits');
    await expect(notice.getByRole('button', { name: 'Get credits' })).toBeEnabled();
    await expect(page.getByRole('button', { name: 'Generate now' })).toBeEnabled();
    await expect(page.getByRole('button', { name: 'Back' })).toBeEnabled();
    await screenshot(page, 'welcome-no-credits-light');
    expect(await readOnboarded(user.id)).toBe(false);

    await notice.getByRole('button', { name: 'Continue without generating' }).click();
    await expectMidjourney(page);
    await expectOnboarded(user);
    expect(await readTasksOf(user.email)).toEqual([]);
  });

  test('an onboarded user who opens /welcome is taken to the Midjourney tool', async ({ context, page }) => {
    const user = await createUser('onb-done', { onboarded: true });
    await signIn(context, user);
    await page.goto('/welcome');
    await expectMidjourney(page);
    await expect(page.getByTestId('screen-welcome')).toHaveCount(0);
  });
});
