// Issue 20 in a real browser: a named key with the read scope cannot generate; a monthly
// spending limit refuses an auto top-up and says why; a sandbox dispute takes the credits
// back, shows the banner and blocks new tasks until it is won.
import { expect, test } from '@playwright/test';
import { formatCredits, openSubscription, readBilling, subscribeViaApi } from '../support/billing.ts';
import { screenshot } from '../support/journeys.ts';
import { API_URL, SHELL_URL } from '../support/platform.ts';
import { submitTask, waitForTerminal } from '../support/tasks.ts';
import { applyCredit, createUser, signIn, type TestUser } from '../support/users.ts';

/** A dashboard call (API key and session), as the dashboard's client sends it. */
async function dashboardPost<T>(user: TestUser, path: string, body: unknown = {}): Promise<T> {
  const res = await fetch(`${API_URL}${path}`, {
    method: 'POST',
    headers: { authorization: user.row.api_key, 'x-session-token': user.session.access_token, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path} → HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

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

  test('a monthly spending limit set in the top-up dialog refuses an auto top-up, and the dialog says why', async ({ context, page }) => {
    test.setTimeout(90_000);
    const user = await createUser('spend-limit', { onboarded: true });
    await subscribeViaApi(user, 'basic'); // a plan is not counted in the limit
    await signIn(context, user);
    await openSubscription(page);
    await page.getByRole('button', { name: 'Get credits' }).click();
    const dialog = page.getByTestId('top-up-dialog');

    const limits = dialog.getByTestId('spending-controls');
    await limits.getByLabel('Monthly spending limit').fill('10');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await expect(limits.getByTestId('spending-controls-saved')).toBeVisible();

    // auto top-up of $20 when below 500: over the $10 limit
    const settings = dialog.getByTestId('auto-top-up');
    await settings.getByText('Auto top-up', { exact: true }).click();
    await settings.getByLabel('When credits fall below').selectOption('500');
    await settings.getByLabel('Top up with').fill('20');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect(settings.getByTestId('auto-top-up-saved')).toBeVisible();
    await dialog.getByRole('button', { name: 'Close' }).click();

    const { credits } = await readBilling(user.id);
    await applyCredit(user.id, 502 - credits, 'e2e: just above the auto top-up threshold');
    const taskId = await submitTask(user.row.api_key, '/pro/imagine', { prompt: 'a paper boat on a pond' });
    await waitForTerminal(user.row.api_key, taskId);
    // the check after the charge ran and was refused: nothing was charged, the balance stays below
    await expect
      .poll(
        async () => {
          const res = await fetch(`${API_URL}/auth/spending-limits`, {
            headers: { authorization: user.row.api_key, 'x-session-token': user.session.access_token },
          });
          return ((await res.json()) as { last_refusal?: { auto_topup: unknown } }).last_refusal?.auto_topup ?? null;
        },
        { message: 'the auto top-up was refused and recorded', timeout: 20_000 },
      )
      .not.toBeNull();
    await page.getByRole('button', { name: 'Get credits' }).click();
    await expect(dialog.getByTestId('auto-top-up-refused')).toContainText('Last auto top-up refused', { timeout: 20_000 });
    await expect(dialog.getByTestId('auto-top-up-refused')).toContainText('$10');
    await screenshot(page, 'spending-limit-refused');
    expect((await readBilling(user.id)).credits).toBe(498);
  });

  test('a sandbox dispute takes the credits back, shows the banner and blocks new tasks; won, all is restored', async ({ context, page }) => {
    const user = await createUser('dispute', { onboarded: true });
    await subscribeViaApi(user, 'basic'); // $39, 1,000 credits
    await signIn(context, user);
    const { credits } = await readBilling(user.id);
    await applyCredit(user.id, 100 - credits, 'e2e: most of the plan spent');
    await page.goto('/dashboard/tools/midjourney');
    await expect(page.getByTestId('credits-count')).toHaveText('100');
    await expect(page.getByTestId('account-hold-banner')).toBeHidden();

    const opened = await dashboardPost<{ credits: number; hold: string | null }>(user, '/billing/sandbox/dispute');
    expect(opened).toMatchObject({ credits: -900, hold: 'dispute' });
    const banner = page.getByTestId('account-hold-banner');
    await expect(banner).toHaveAttribute('data-hold', 'dispute');
    await expect(banner).toContainText('Your account is on hold: a payment was disputed.');
    await expect(page.getByTestId('credits-count')).toHaveText(formatCredits(-900));
    await screenshot(page, 'dispute-banner');

    // a new task is refused with the hold's message, in the tool and through the API
    const prompt = page.getByRole('textbox', { name: 'Prompt' });
    await prompt.fill('a lighthouse at dawn');
    await prompt.press('Enter');
    await expect(page.getByTestId('toast-error').filter({ hasText: 'Your account is on hold' })).toBeVisible();
    const refused = await fetch(`${API_URL}/pro/imagine`, {
      method: 'POST',
      headers: { authorization: user.row.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a lighthouse at dawn' }),
    });
    expect(refused.status).toBe(402);

    const won = await dashboardPost<{ credits: number; hold: string | null }>(user, '/billing/sandbox/dispute/close', { outcome: 'won' });
    expect(won).toMatchObject({ credits: 100, hold: null });
    await expect(banner).toBeHidden();
    await expect(page.getByTestId('credits-count')).toHaveText('100');
    await waitForTerminal(user.row.api_key, await submitTask(user.row.api_key, '/pro/imagine', { prompt: 'a lighthouse at dawn' }));
  });
});
