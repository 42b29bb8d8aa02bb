// Steps several journeys share, written as a person would do them in the browser.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page } from '@playwright/test';
import { newestMailId, waitForMail } from './users.ts';

const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../artifacts');

/** A full-page screenshot under e2e/artifacts/, after fonts and transitions have settled. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(250);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** The dashboard frame plus the Midjourney tool from the tools remote. */
export async function expectMidjourney(page: Page): Promise<void> {
  await expect(page).toHaveURL(/\/dashboard\/tools\/midjourney$/);
  await expect(page.getByTestId('sidebar')).toBeVisible();
  await expect(page.getByTestId('screen-midjourney')).toBeVisible();
}

/**
 * Signs in on /auth: types the email, lets the real ALTCHA widget do its proof of work, sends
 * the magic link and opens it from the dev mailbox. `lastMailAt`: when this address last got a
 * link, since the auth service allows one per second.
 */
export async function signInWithMagicLink(page: Page, email: string, lastMailAt = 0): Promise<void> {
  await page.goto('/auth');
  const send = page.getByRole('button', { name: 'Send Magic Link' });
  const github = page.getByRole('button', { name: 'Sign in with GitHub' });
  await expect(send).toBeDisabled();
  await expect(github).toBeDisabled();
  await page.getByLabel('Email').fill(email);
  // The label, as a person clicks it (the widget draws its own tick over the native checkbox).
  await page.getByTestId('captcha').getByText("I'm not a robot").click();
  await expect(send).toBeEnabled({ timeout: 30_000 });
  await expect(github).toBeEnabled();

  const wait = lastMailAt + 1_100 - Date.now();
  if (wait > 0) await page.waitForTimeout(wait);
  const before = await newestMailId(email);
  await send.click();
  await expect(page.getByTestId('login-sent')).toHaveText(`Check ${email} for your magic link.`);
  const mail = await waitForMail(email, before);
  expect(mail.link, 'the mail carries a magic link').toBeTruthy();
  await page.goto(mail.link!);
}
