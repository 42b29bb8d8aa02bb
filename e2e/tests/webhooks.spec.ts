import http from 'node:http';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import { readClipboard } from '../support/api-keys.ts';
import { screenshot } from '../support/journeys.ts';
import { SHELL_URL } from '../support/platform.ts';
import { createUser, signIn } from '../support/users.ts';

// The webhook console on the API Keys screen, against the real platform: rotate the signing
// secret, send a test event to a receiver started here, verify it with the official Standard
// Webhooks library using the secrets copied from the page (old and new during the overlap), watch
// the delivery appear live, read its details and resend it.

type Received = { headers: Record<string, string>; body: string };

/** axe-core on the webhook card and the console: no serious or critical violation. */
async function expectAccessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).include('[data-testid="webhook-card"]').include('[data-testid="delivery-console"]').analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`);
  expect(bad).toEqual([]);
}

const toast = (page: Page, type: 'success' | 'error', text: string) => page.getByTestId(`toast-${type}`).filter({ hasText: text });

test('rotate the signing secret, verify a test event with the official library, see it live and resend it', async ({ context, page }) => {
  const received: Received[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`received ${received.length}`);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/aim-hook`;

  try {
    const user = await createUser('webhooks', { onboarded: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: SHELL_URL });
    await signIn(context, user);
    await page.goto('/dashboard/api-keys');
    await expect(page.getByRole('heading', { level: 1, name: 'API Keys' })).toBeVisible();

    // the console starts empty, and a test event needs a URL
    const deliveries = page.getByTestId('delivery-console');
    await expect(deliveries.getByRole('heading', { name: 'Webhook deliveries' })).toBeVisible();
    await expect(page.getByTestId('delivery-empty')).toContainText('No deliveries yet.');
    await expect(page.getByRole('button', { name: 'Send test event' })).toBeDisabled();
    await page.getByTestId('webhook-input').fill(hookUrl);
    await page.getByTestId('webhook-input').press('Enter');
    await expect(toast(page, 'success', 'Webhook URL updated')).toBeVisible();

    // the secret: masked, copied as it is
    const value = page.getByTestId('signing-secret-value');
    await expect(value).toHaveText(/^whsec_•+.{4}$/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await expect(toast(page, 'success', 'Signing secret copied to clipboard')).toBeVisible();
    const oldSecret = await readClipboard(page);
    expect(oldSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await page.getByRole('button', { name: 'Show secret' }).click();
    await expect(value).toHaveText(oldSecret);

    // rotate: asks first (keyboard: Enter opens, the safe choice has the focus)
    await page.getByRole('button', { name: 'Rotate secret' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('alertdialog', { name: 'Rotate your signing secret?' });
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await dialog.getByRole('button', { name: 'Rotate', exact: true }).click();
    await expect(toast(page, 'success', 'New signing secret generated')).toBeVisible();
    await expect(value).not.toHaveText(oldSecret);
    await expect(page.getByTestId('signing-secret-note')).toContainText('The previous secret also signs deliveries until');
    await page.getByRole('button', { name: 'Copy secret' }).click();
    const newSecret = await readClipboard(page);
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    await expect(value).toHaveText(newSecret);

    // a test event: both secrets verify it with the official library during the overlap
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect(toast(page, 'success', 'Test event queued')).toBeVisible();
    await expect.poll(() => received.length).toBe(1);
    const [first] = received;
    expect(first.headers['x-webhook-event']).toBe('webhook.test');
    expect(first.headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [newSecret, oldSecret]) expect(new Webhook(secret).verify(first.body, first.headers)).toMatchObject({ event: 'webhook.test' });
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(first.body, first.headers)).toThrow();

    // the console shows it without a reload (it polls while the page is open)
    const row = deliveries.locator(`[data-testid="delivery-row"][data-delivery-id="${first.headers['webhook-id']}"]`);
    await expect(row).toHaveAttribute('data-status', 'delivered');
    await expect(row.getByTestId('delivery-last-status')).toHaveText('200');
    await row.getByRole('button', { name: /^Details of webhook\.test delivery/ }).click();
    const detail = page.getByTestId('delivery-detail');
    await expect(detail.getByTestId('delivery-payload')).toContainText('"event": "webhook.test"');
    await expect(detail.getByTestId('delivery-attempt')).toHaveCount(1);
    await expect(detail.getByTestId('delivery-attempt')).toContainText('received 1');
    await page.keyboard.press('Escape');
    await expect(detail).toBeHidden();

    // resend: the same webhook-id again, verified again
    await row.getByRole('button', { name: /^Resend webhook\.test delivery/ }).click();
    await expect(toast(page, 'success', 'Delivery queued to be sent again')).toBeVisible();
    await expect.poll(() => received.length).toBe(2);
    expect(received[1].headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(received[1].body).toBe(first.body);
    expect(new Webhook(newSecret).verify(received[1].body, received[1].headers)).toMatchObject({ event: 'webhook.test' });
    await expect(row.getByRole('cell').nth(3)).toHaveText('2');
    await expect(row).toHaveAttribute('data-status', 'delivered');

    // the status filter
    await deliveries.getByRole('combobox', { name: 'Status' }).selectOption('failed');
    await expect(page.getByTestId('delivery-empty')).toHaveText('No deliveries with this status.');
    await deliveries.getByRole('combobox', { name: 'Status' }).selectOption('delivered');
    await expect(row).toBeVisible();

    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'webhooks-console-dark');
    await expectAccessible(page);
    await page.getByTestId('theme-switch').selectOption('light');
    await expect(row).toBeVisible();
    await screenshot(page, 'webhooks-console-light');
    await expectAccessible(page);
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
  }
});
