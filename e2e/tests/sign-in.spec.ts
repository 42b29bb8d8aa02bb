import { expect, test } from '@playwright/test';
import { expectMidjourney, screenshot, signInWithMagicLink } from '../support/journeys.ts';
import { createUser, signIn, uniqueEmail } from '../support/users.ts';

test.describe('signing in and where people land', () => {
  test('a new user signs in by the magic link from the dev mailbox and lands on /welcome', async ({ page }) => {
    const email = uniqueEmail('newcomer');
    await page.goto('/auth');
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await screenshot(page, 'login');

    await signInWithMagicLink(page, email);
    await expect(page).toHaveURL(/\/welcome$/);
    await expect(page.getByTestId('screen-welcome')).toBeVisible();
    await screenshot(page, 'welcome');
  });

  test('an onboarded user who signs in lands on the Midjourney tool', async ({ page }) => {
    const user = await createUser('onboarded', { onboarded: true });
    await signInWithMagicLink(page, user.email, user.lastMailAt);
    await expectMidjourney(page);
    await expect(page.getByTestId('user-short-name')).toHaveText('onboarded');
  });

  test('/dashboard without a session goes to /auth', async ({ page }) => {
    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/auth$/);
    await expect(page.getByRole('button', { name: 'Send Magic Link' })).toBeDisabled();
  });

  test('an unknown path takes a signed-in user to the Midjourney tool', async ({ context, page }) => {
    const user = await createUser('wanderer', { onboarded: true });
    await signIn(context, user);
    await page.goto('/no/such/page');
    await expectMidjourney(page);
  });
});
