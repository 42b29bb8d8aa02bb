// Issue 20 in a real browser: a named key with the read scope cannot generate; a monthly
// spending limit refuses an auto top-up and says why; a sandbox dispute takes the credits
// back, shows the banner and blocks new tasks until it is won.
import { expect, test } from '@playwright/test';
import { API_URL, SHELL_URL } from '../support/platform.ts';
import { screenshot } from '../support/journeys.ts';
import { createUser, signIn } from '../support/users.ts';

test.describe('money and credentials', () => {
  test('a named key with the read scope is shown once, reads, and is refused on /pro/imagine; revoked, it is refused everywhere', async ({ context, page }) => {
    const user = await createUser('named-key', { onboarded: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: SHELL_URL });
    await signIn(context, user);
    await page.goto('/dashboard/api-keys');
    const card = page.getByTestId('named-keys-card');
    await expect(card.getByTestId('named-keys-empty')).toBeVisible();

    await card.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByTestId('create-key-dialog');
    await dialog.getByTestId('new-key-name').fill('CI reader');
    // only read: untick generate if it is ticked by default
    const generate = dialog.getByTestId('new-key-scope-generate');
    if (await generate.isChecked()) await generate.uncheck();
    const read = dialog.getByTestId('new-key-scope-read');
    if (!(await read.isChecked())) await read.check();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const value = dialog.getByTestId('new-key-value');
    await expect(value).toHaveText(/^ak_[A-Za-z0-9]{40}$/);
    const key = (await value.textContent())?.trim() ?? '';
    await screenshot(page, 'named-key-created');
    await dialog.getByRole('button', { name: 'Done' }).click();

    const row = card.getByTestId('named-key-row').filter({ hasText: 'CI reader' });
    await expect(row).toBeVisible();
    await expect(row).toContainText(key.slice(0, 8));
    await expect(row).toContainText(key.slice(-4));
    await expect(page.getByText(key)).toHaveCount(0);

    const imagine = await fetch(`${API_URL}/pro/imagine`, {
      method: 'POST',
      headers: { authorization: key, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a lighthouse at dawn' }),
    });
    expect(imagine.status).toBe(403);
    expect(((await imagine.json()) as { errors: { msg: string }[] }).errors[0].msg).toBe('This API key lacks the generate scope');
    const account = await fetch(`${API_URL}/account`, { headers: { authorization: key } });
    expect(account.status).toBe(200);
    // a key, named or not, never moves money
    const topup = await fetch(`${API_URL}/auth/update-auto-topup`, {
      method: 'POST',
      headers: { authorization: key, 'content-type': 'application/json' },
      body: JSON.stringify({ auto_topup: true, auto_topup_min: 2500, auto_topup_amount: 10000 }),
    });
    expect(topup.status).toBe(403);

    await row.getByRole('button', { name: 'Revoke CI reader' }).click();
    await page
      .getByTestId('revoke-key-dialog')
      .getByRole('button', { name: /Revoke/ })
      .click();
    await expect(row).toHaveAttribute('data-state', 'revoked');
    expect((await fetch(`${API_URL}/account`, { headers: { authorization: key } })).status).toBe(401);
  });
});
