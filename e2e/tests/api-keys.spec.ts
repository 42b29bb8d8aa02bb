import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { masked, onboardingStatusWith, parseCurl, readAccount, readClipboard } from '../support/api-keys.ts';
import { screenshot } from '../support/journeys.ts';
import { API_URL, SHELL_URL } from '../support/platform.ts';
import { readTaskRow } from '../support/tasks.ts';
import { applyCredit, createUser, readOwnRow, signIn, type TestUser } from '../support/users.ts';

async function openApiKeys(context: BrowserContext, page: Page, user: TestUser, query = ''): Promise<void> {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: SHELL_URL });
  await signIn(context, user);
  await page.goto(`/dashboard/api-keys${query}`);
  await expect(page.getByRole('heading', { level: 1, name: 'API Keys' })).toBeVisible();
  await expect(page.getByTestId('api-key-value')).toBeVisible();
}

/** Full-page shots of a scrolled page draw the fixed sidebar where the viewport was: scroll up first. */
async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, name);
}

const toast = (page: Page, type: 'success' | 'error', text: string) => page.getByTestId(`toast-${type}`).filter({ hasText: text });

test.describe('the API Keys page', () => {
  test('shows the key masked (first 4 / last 4), reveals it, and copies the real key', async ({ context, page }) => {
    const user = await createUser('keys-copy', { onboarded: true });
    // The key as the user's own supabase-js reads it.
    const { api_key: key } = await readOwnRow(user.session);
    await openApiKeys(context, page, user);

    const value = page.getByTestId('api-key-value');
    await expect(value).toHaveText(masked(key));
    await expect(page.getByTestId('sample-code')).toContainText(masked(key));
    await expect(page.getByTestId('sample-code')).not.toContainText(key);

    await page.getByRole('button', { name: 'Copy key' }).click();
    await expect(toast(page, 'success', 'API key copied to clipboard')).toBeVisible();
    expect(await readClipboard(page)).toBe(key);

    await page.getByRole('button', { name: 'Show key' }).click();
    await expect(value).toHaveText(key);
    await page.getByRole('button', { name: 'Hide key' }).click();
    await expect(value).toHaveText(masked(key));
    await shot(page, 'api-keys-dark');

    await page.getByTestId('theme-switch').selectOption('light');
    await shot(page, 'api-keys-light');
  });

  test('Rotate asks first, then the page shows the new key and the old one is refused', async ({ context, page }) => {
    const user = await createUser('keys-rotate', { onboarded: true });
    const oldKey = user.row.api_key;
    await openApiKeys(context, page, user);
    await expect(page.getByTestId('api-key-value')).toHaveText(masked(oldKey));

    // Keyboard: the dialog opens on Enter and Escape leaves everything as it was.
    await page.getByRole('button', { name: 'Rotate key' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('alertdialog', { name: 'Rotate your API key?' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Cancel' }), 'the safe choice has the focus').toBeFocused();
    await screenshot(page, 'api-keys-rotate-dialog');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    expect((await readAccount(user.id)).api_key).toBe(oldKey);

    await page.getByRole('button', { name: 'Rotate key' }).click();
    await dialog.getByRole('button', { name: 'Rotate', exact: true }).click();
    await expect(toast(page, 'success', 'New API key generated')).toBeVisible();
    await expect(dialog).toBeHidden();
    await expect.poll(async () => (await readAccount(user.id)).api_key, { message: 'mdusers.api_key' }).not.toBe(oldKey);
    const newKey = (await readAccount(user.id)).api_key;
    await expect(page.getByTestId('api-key-value')).toHaveText(masked(newKey));

    expect(await onboardingStatusWith(oldKey), 'the old key is refused').toBe(401);
    expect(await onboardingStatusWith(newKey), 'the new key works').toBe(200);

    // The page's own calls now go out with the new key.
    await page.getByRole('button', { name: 'Copy key' }).click();
    expect(await readClipboard(page)).toBe(newKey);
    await page.getByTestId('webhook-input').fill('https://hooks.example.com/after-rotation');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(toast(page, 'success', 'Webhook URL updated')).toBeVisible();
  });

  test('the webhook URL: a wrong scheme is refused on the page, the server reason is shown, an https URL is stored', async ({ context, page }) => {
    const user = await createUser('keys-webhook', { onboarded: true });
    await openApiKeys(context, page, user);
    await expect(page.getByTestId('webhook-current')).toHaveText('No webhook set.');
    const input = page.getByRole('textbox', { name: 'Webhook URL' });
    const error = page.getByTestId('webhook-error');

    await input.fill('ftp://x');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(error).toHaveText('Webhook must start with http:// or https://');

    // Passes the page's scheme rule, fails the server's URL rule: its 400 message is shown.
    await input.fill('https://exa mple.com');
    await input.press('Enter');
    await expect(error).toHaveText('Enter a valid webhook URL or leave blank to remove the webhook URL');
    await expect(toast(page, 'error', 'Failed to update webhook URL')).toBeVisible();
    expect((await readAccount(user.id)).integration_webhook_url).toBeNull();

    const url = 'https://hooks.example.com/aim?source=dashboard';
    await input.fill(url);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(toast(page, 'success', 'Webhook URL updated')).toBeVisible();
    await expect(error).toBeHidden();
    await expect.poll(async () => (await readAccount(user.id)).integration_webhook_url).toBe(url);
    await expect(page.getByTestId('webhook-current-url')).toHaveText(url);

    await page.reload();
    await expect(page.getByTestId('webhook-current-url')).toHaveText(url);
    await expect(input).toHaveValue(url);

    // Saved blank, it is removed.
    await input.fill('');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(async () => (await readAccount(user.id)).integration_webhook_url).toBeNull();
    await expect(page.getByTestId('webhook-current')).toHaveText('No webhook set.');
  });

  test('?language=python&requestType=fetch preselects the sample; the copied curl sample runs against the API', async ({ context, page }) => {
    const user = await createUser('keys-sample', { onboarded: true });
    await applyCredit(user.id, 100, 'e2e credits for the sample journey');
    const key = user.row.api_key;
    await openApiKeys(context, page, user, '?language=python&requestType=fetch');

    await expect(page.getByRole('tab', { name: 'Python' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('radio', { name: 'Fetch' })).toBeChecked();
    const code = page.getByTestId('sample-code');
    await expect(code).toContainText(`"${API_URL}/fetch"`);
    await expect(code).toContainText('import urllib.request');
    await expect(code).not.toContainText('/imagine"');

    await page.getByRole('tab', { name: 'CURL' }).click();
    await page.getByTestId('request-type').getByText('Generate').click();
    await expect.poll(() => Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ language: 'curl', requestType: 'generate' });
    await expect(code).toContainText(`curl -X POST '${API_URL}/imagine'`);
    await expect(code).toContainText(masked(key));

    await page.getByRole('button', { name: 'Copy code' }).click();
    await expect(toast(page, 'success', 'Sample code copied')).toBeVisible();
    const copied = await readClipboard(page);
    expect(copied).toContain(key);

    // The copied command, run for real: its URL, method, headers and body against the platform API.
    const request = await parseCurl(copied);
    expect(request).toMatchObject({ method: 'POST', url: `${API_URL}/imagine`, headers: { Authorization: key, 'Content-Type': 'application/json' } });
    const res = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body });
    const answer = (await res.json()) as { task_id?: string };
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(answer.task_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await readTaskRow(answer.task_id!)).toMatchObject({ type: 'imagine' });
    await shot(page, 'api-keys-sample-curl-dark');
  });
});
