import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { CARDS, formatCredits, openSubscription, payWithCard, readBilling, recordExternalRequests, subscribeViaApi } from '../support/billing.ts';
import { screenshot } from '../support/journeys.ts';
import { submitTask, waitForTerminal } from '../support/tasks.ts';
import { applyCredit, createUser, signIn } from '../support/users.ts';

const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../artifacts');
const planButton = (page: Page, card: string) => page.getByTestId(`plan-card-${card}`).getByRole('button');

test.describe('billing in the sandbox', () => {
  test('a new user without a plan is offered the trial, subscribes with 4242, sees the plan and credits live, then cancels', async ({ context, page }) => {
    const user = await createUser('subscriber', { onboarded: true });
    await signIn(context, user);
    const external = recordExternalRequests(page);
    await openSubscription(page);

    await expect(page.getByTestId('current-plan')).toHaveText('free');
    // Spec §4: no next billing date, so the button reads Cancelled and is disabled.
    await expect(page.getByTestId('cancel-subscription')).toHaveText('Cancelled');
    await expect(page.getByTestId('cancel-subscription')).toBeDisabled();
    await expect(page.getByTestId('trial-offer')).toBeVisible();
    await expect(page.getByTestId('subscription-note')).toHaveText('An active subscription is needed to buy credits.');
    await expect(page.getByTestId('plan-card-growth')).toContainText('Most Popular');
    for (const card of ['basic', 'starter', 'growth', 'scale']) await expect(planButton(page, card)).toHaveText('Subscribe');
    // Customer creation happens when customer_id is empty (spec §4).
    await expect.poll(async () => (await readBilling(user.id)).customer_id).toMatch(/^cus_sbx_/);

    // The Scale slider, by keyboard: End is 4 (scale3), Home is 0.5 (scale1, 500 images daily).
    const thumb = page.getByTestId('scale-slider').getByRole('slider');
    await thumb.focus();
    await thumb.press('End');
    await expect(page.getByTestId('plan-card-scale')).toHaveAttribute('data-plan', 'scale3');
    await expect(page.getByTestId('scale-images-daily')).toHaveText('4,000 images daily');
    await thumb.press('Home');
    await expect(page.getByTestId('plan-card-scale')).toHaveAttribute('data-plan', 'scale1');
    await expect(page.getByTestId('scale-images-daily')).toHaveText('500 images daily');
    await screenshot(page, 'subscription-dark');

    const before = (await readBilling(user.id)).credits;
    await planButton(page, 'basic').click();
    const dialog = page.getByTestId('checkout-dialog');
    await expect(dialog).toContainText('Subscribe to Basic');
    await expect(dialog.getByTestId('sandbox-hints')).toContainText('4242 4242 4242 4242 succeeds');
    await screenshot(page, 'card-form-dark');
    await payWithCard(dialog, CARDS.visa, 'Pay $39');
    await expect(dialog.getByTestId('checkout-done')).toContainText('Payment successful');
    await dialog.getByRole('button', { name: 'Done' }).click();

    // Live: the page, the sidebar and the top bar follow the user row without a reload.
    await expect(page.getByTestId('current-plan')).toHaveText('basic');
    await expect(page.getByTestId('user-plan')).toHaveText('basic');
    await expect(page.getByTestId('usage-credits')).toHaveText(formatCredits(before + 1000));
    await expect(page.getByTestId('credits-count')).toHaveText(formatCredits(before + 1000));
    await expect(page.getByTestId('next-billing-date')).not.toHaveText('—');
    await expect(planButton(page, 'basic')).toHaveText('Current Plan');
    await expect(planButton(page, 'basic')).toBeDisabled();
    await expect(planButton(page, 'growth')).toHaveText('Switch plan');
    await expect(page.getByTestId('trial-offer')).toBeHidden();

    await page.getByTestId('cancel-subscription').click();
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    await expect(page.getByTestId('cancel-subscription')).toHaveText('Cancelled');
    await expect(page.getByTestId('cancel-subscription')).toBeDisabled();
    await expect(planButton(page, 'growth')).toHaveText('Subscribe');
    expect((await readBilling(user.id)).next_billing_date).toBeNull();

    await page.getByTestId('theme-switch').selectOption('light');
    await screenshot(page, 'subscription-light');
    expect(external, 'the sandbox loads nothing from the network').toEqual([]);
  });

  test('a declined card (0002) shows the decline and changes nothing; another card then pays', async ({ context, page }) => {
    const user = await createUser('decline', { onboarded: true });
    await signIn(context, user);
    await openSubscription(page);
    await planButton(page, 'starter').click();
    const dialog = page.getByTestId('checkout-dialog');
    await payWithCard(dialog, CARDS.declined, 'Pay $199');
    await expect(dialog.getByTestId('payment-error')).toHaveText('Your card was declined.');
    expect((await readBilling(user.id)).plan).toBe('zero');
    await expect(page.getByTestId('current-plan')).toHaveText('free');

    await payWithCard(dialog, CARDS.visa, 'Pay $199');
    await expect(dialog.getByTestId('checkout-done')).toBeVisible();
    await expect(page.getByTestId('current-plan')).toHaveText('starter');
  });

  test('3-D Secure (3155): failing the challenge declines, completing it pays', async ({ context, page }) => {
    const user = await createUser('threeds', { onboarded: true });
    await signIn(context, user);
    await openSubscription(page);
    await planButton(page, 'growth').click();
    const dialog = page.getByTestId('checkout-dialog');
    await payWithCard(dialog, CARDS.threeDS, 'Pay $399');
    await expect(dialog.getByTestId('sandbox-3ds')).toBeVisible();
    await screenshot(page, 'card-form-3ds');
    await dialog.getByRole('button', { name: 'Fail authentication' }).click();
    await expect(dialog.getByTestId('payment-error')).toBeVisible();
    expect((await readBilling(user.id)).plan).toBe('zero');

    await payWithCard(dialog, CARDS.threeDS, 'Pay $399');
    await dialog.getByRole('button', { name: 'Complete authentication' }).click();
    await expect(dialog.getByTestId('checkout-done')).toBeVisible();
    await expect(page.getByTestId('current-plan')).toHaveText('growth');
  });

  test('Buy credits in the top bar tops up a preset and a custom amount', async ({ context, page }) => {
    const user = await createUser('topper', { onboarded: true });
    await subscribeViaApi(user, 'basic');
    await signIn(context, user);
    await page.goto('/dashboard/tools/midjourney');
    const start = (await readBilling(user.id)).credits;
    await expect(page.getByTestId('credits-count')).toHaveText(formatCredits(start));

    await page.getByRole('button', { name: 'Buy credits' }).click();
    const dialog = page.getByTestId('top-up-dialog');
    await dialog.getByLabel('Amount').selectOption('20');
    await expect(dialog.getByTestId('top-up-credits')).toHaveText('You get 500 credits.');
    await screenshot(page, 'top-up-dialog-dark');
    await dialog.getByRole('button', { name: 'Buy 500 credits for $20' }).click();
    await payWithCard(dialog, CARDS.visa, 'Pay $20');
    await expect(dialog.getByTestId('checkout-done')).toBeVisible();
    await expect(page.getByTestId('credits-count')).toHaveText(formatCredits(start + 500));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(dialog).toBeHidden();

    await page.getByTestId('theme-switch').selectOption('light');
    await page.getByRole('button', { name: 'Buy credits' }).click();
    await dialog.getByLabel('Amount').selectOption('custom');
    const custom = dialog.getByLabel('Custom amount');
    await custom.pressSequentially('2x5');
    await expect(custom).toHaveValue('25');
    await dialog.getByRole('button', { name: 'Buy credits' }).click();
    await expect(dialog).toContainText('Enter a valid custom amount (multiples of $10)');
    await screenshot(page, 'top-up-dialog-light');
    await custom.fill('30');
    await dialog.getByRole('button', { name: 'Buy 750 credits for $30' }).click();
    await expect(dialog.getByTestId('sandbox-card-form')).toBeVisible();
    await screenshot(page, 'card-form-light');
    await payWithCard(dialog, CARDS.visa, 'Pay $30');
    await expect(dialog.getByTestId('checkout-done')).toBeVisible();
    await expect(page.getByTestId('credits-count')).toHaveText(formatCredits(start + 1250));
    expect((await readBilling(user.id)).credits).toBe(start + 1250);
  });

  test('auto top-up buys credits with the default card once spending takes the balance below the threshold', async ({ context, page }) => {
    test.setTimeout(90_000);
    const user = await createUser('autotop', { onboarded: true });
    await subscribeViaApi(user, 'basic');
    await signIn(context, user);
    await openSubscription(page);
    await page.getByRole('button', { name: 'Get credits' }).click();
    const dialog = page.getByTestId('top-up-dialog');
    const settings = dialog.getByTestId('auto-top-up');
    await settings.getByText('Auto top-up', { exact: true }).click();
    await settings.getByLabel('When credits fall below').selectOption('500');
    await settings.getByLabel('Top up with').fill('20');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect(settings.getByTestId('auto-top-up-saved')).toBeVisible();
    await screenshot(page, 'top-up-dialog-auto');
    expect(await readBilling(user.id)).toMatchObject({ auto_topup: true, auto_topup_min: 500, auto_topup_amount: 20 });
    await dialog.getByRole('button', { name: 'Close' }).click();

    // Just above the threshold, then one Midjourney imagine (4 credits) takes it below.
    const { credits } = await readBilling(user.id);
    await applyCredit(user.id, 502 - credits, 'e2e: just above the auto top-up threshold');
    await expect(page.getByTestId('usage-credits')).toHaveText('502');
    const taskId = await submitTask(user.row.api_key, '/pro/imagine', { prompt: 'a paper boat on a pond' });
    await waitForTerminal(user.row.api_key, taskId);
    await expect.poll(async () => (await readBilling(user.id)).credits, { message: 'the auto top-up added 500 credits', timeout: 20_000 }).toBe(498 + 500);
    await expect(page.getByTestId('usage-credits')).toHaveText(formatCredits(998));
  });

  test('cards: add one, set it as default, delete the other; the only card of a subscription stays', async ({ context, page }) => {
    const user = await createUser('cards', { onboarded: true });
    await subscribeViaApi(user, 'basic');
    await signIn(context, user);
    await page.goto('/dashboard/billing/payment-methods');
    const cards = page.getByTestId('payment-method');
    await expect(cards).toHaveCount(1);
    // Spec §2: every card has Set default and Delete; Set default is disabled on the default card.
    await expect(page.getByRole('button', { name: 'Set Visa ending 4242 as default' })).toBeDisabled();

    // The subscription's only card cannot go: the server's reason is shown (for 7 s).
    await page.getByRole('button', { name: 'Delete Visa ending 4242' }).click();
    await expect(page.getByTestId('payment-methods-error')).toHaveText(
      'This is the only card for your subscription or auto top-up. Add another card before removing it.',
    );

    await page.getByRole('button', { name: 'Add New' }).click();
    const dialog = page.getByTestId('checkout-dialog');
    await payWithCard(dialog, CARDS.mastercard, 'Save card');
    await expect(dialog.getByTestId('checkout-done')).toContainText('Card saved');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(cards).toHaveCount(2);
    await screenshot(page, 'payment-methods-dark');

    await page.getByRole('button', { name: 'Set Mastercard ending 4444 as default' }).click();
    await expect(page.locator('[data-testid="payment-method"][data-default="true"]')).toHaveAttribute('data-last4', '4444');
    await expect(page.getByRole('button', { name: 'Set Mastercard ending 4444 as default' })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Set Visa ending 4242 as default' })).toBeEnabled();
    await page.getByRole('button', { name: 'Delete Visa ending 4242' }).click();
    await expect(cards).toHaveCount(1);
    await expect(cards.first()).toHaveAttribute('data-last4', '4444');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(cards).toHaveCount(1);
    await expect(page.getByTestId('payment-methods-error')).toBeHidden({ timeout: 10_000 });
  });

  test("a user without cards sees 'No payment methods yet'", async ({ context, page }) => {
    const user = await createUser('nocards', { onboarded: true });
    await signIn(context, user);
    await page.goto('/dashboard/billing/payment-methods');
    await expect(page.getByTestId('payment-methods-empty')).toContainText('No payment methods yet');
  });

  test('an invoice downloads as a PDF', async ({ context, page }) => {
    const user = await createUser('invoices', { onboarded: true });
    await subscribeViaApi(user, 'basic');
    await signIn(context, user);
    await page.goto('/dashboard/billing/invoices');
    const table = page.getByTestId('invoices-table');
    await expect(table.getByRole('columnheader')).toHaveText(['Invoice', 'Date', 'Status', 'Plan', 'Amount', 'Action']);
    const row = page.getByTestId('invoice-row').first();
    await expect(row).toContainText('PAID');
    await expect(row).toContainText('$39.00');
    const number = (await row.getAttribute('data-invoice'))!;
    expect(number).toMatch(/^INV-/);
    await screenshot(page, 'invoices-dark');

    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: `Download ${number}` }).click()]);
    expect(download.suggestedFilename()).toBe(`${number}.pdf`);
    const saved = path.join(ARTIFACTS, `download-${number}.pdf`);
    await download.saveAs(saved);
    expect((await readFile(saved)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  test('the trial is offered only while eligible: bought once, then gone', async ({ context, page }) => {
    const user = await createUser('trial', { onboarded: true });
    await signIn(context, user);
    await openSubscription(page);
    const before = (await readBilling(user.id)).credits;
    await page.getByRole('button', { name: 'Start 7-day trial' }).click();
    const dialog = page.getByTestId('checkout-dialog');
    await payWithCard(dialog, CARDS.visa, 'Pay $10');
    await expect(dialog.getByTestId('checkout-done')).toBeVisible();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByTestId('trial-offer')).toBeHidden();
    await expect(page.getByTestId('usage-credits')).toHaveText(formatCredits(before + 250));
    expect((await readBilling(user.id)).trialed).toBe(true);
    await page.reload();
    await expect(page.getByTestId('subscription-summary')).toBeVisible();
    await expect(page.getByTestId('trial-offer')).toBeHidden();
  });
});
