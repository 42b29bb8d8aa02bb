import { expect, type Page, test } from '@playwright/test';
import { expectMidjourney, screenshot, signInWithMagicLink } from '../support/journeys.ts';
import { createUser, signIn, uniqueEmail, waitForMail } from '../support/users.ts';

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

  test('a new user signs in with GitHub through the local fake provider and lands on /welcome', async ({ page }) => {
    const login = `octo-${Date.now().toString(36)}`;
    await passBotCheck(page);
    await page.getByRole('button', { name: 'Sign in with GitHub' }).click();
    await expect(page.getByRole('heading', { name: 'Sign in with GitHub' })).toBeVisible();
    await page.getByLabel('GitHub login').fill(login);
    await page.getByLabel('Primary email (verified)').fill(uniqueEmail(login));
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await expect(page).toHaveURL(/\/welcome$/);
    await expect(page.getByTestId('screen-welcome')).toBeVisible();
  });

  test('cancelling on GitHub comes back to sign-in with the reason, not an endless Loading...', async ({ page }) => {
    await passBotCheck(page);
    await page.getByRole('button', { name: 'Sign in with GitHub' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page).toHaveURL(/\/auth$/);
    await expect(page.getByTestId('login-error')).toContainText('Error');
    await expect(page.getByTestId('login-error')).toContainText('The user has denied your application access.');
  });

  test('a magic link opened a second time comes back to sign-in saying it is invalid or expired', async ({ browser, page }) => {
    const email = uniqueEmail('twice');
    await signInWithMagicLink(page, email);
    await expect(page).toHaveURL(/\/welcome$/);
    const { link } = await waitForMail(email);
    const other = await browser.newContext();
    const second = await other.newPage();
    await second.goto(link!);
    await expect(second).toHaveURL(/\/auth$/);
    await expect(second.getByTestId('login-error')).toContainText(/invalid or has expired/);
    await other.close();
  });
});

/** Opens /auth and lets the real ALTCHA widget pass, so both sign-in buttons are enabled. */
async function passBotCheck(page: Page): Promise<void> {
  await page.goto('/auth');
  await page.getByTestId('captcha').getByText("I'm not a robot").click();
  await expect(page.getByRole('button', { name: 'Sign in with GitHub' })).toBeEnabled({ timeout: 30_000 });
}
