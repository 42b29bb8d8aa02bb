import { expect, test, type Page } from '@playwright/test';
import { expectMidjourney, screenshot } from '../support/journeys.ts';
import { applyCredit, createUser, signIn } from '../support/users.ts';

const formatCredits = (n: number) => new Intl.NumberFormat('en-US').format(n);
const themeClass = (page: Page) => page.evaluate(() => document.documentElement.className);

test.describe('the dashboard frame', () => {
  test('the sidebar collapses to 84 px and expands back to 240 px', async ({ context, page }) => {
    const user = await createUser('sidebar', { onboarded: true });
    await signIn(context, user);
    await page.goto('/dashboard/tools/midjourney');
    await expectMidjourney(page);
    const sidebar = page.getByTestId('sidebar');
    const width = async () => (await sidebar.boundingBox())?.width;
    await expect.poll(width).toBe(240);
    await expect(page.getByTestId('user-short-name')).toHaveText('sidebar');
    await expect(page.getByTestId('user-plan')).toHaveText('free');

    await page.getByTestId('sidebar-toggle').click();
    await expect(sidebar).toHaveAttribute('data-collapsed', 'true');
    await expect.poll(width).toBe(84);
    await expect(page.getByTestId('user-short-name')).toBeHidden();
    await screenshot(page, 'dashboard-collapsed');

    await page.getByTestId('sidebar-toggle').click();
    await expect(sidebar).toHaveAttribute('data-collapsed', 'false');
    await expect.poll(width).toBe(240);
  });

  test('the top bar and the tab title name the current screen', async ({ context, page }) => {
    const user = await createUser('titles', { onboarded: true });
    await signIn(context, user);
    await page.goto('/dashboard');
    await expect(page.getByTestId('screen-midjourney')).toBeVisible();
    const title = page.getByTestId('screen-title');
    await expect(title).toHaveText('Midjourney');
    await expect(page).toHaveTitle('Midjourney · AI Media Dashboard');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');

    // Client-side navigation through the sidebar.
    await page.getByTestId('sidebar').getByRole('link', { name: 'Payment Methods' }).click();
    await expect(page.getByTestId('screen-payment-methods')).toBeVisible();
    await expect(title).toHaveText('Payment Methods');
    await expect(page).toHaveTitle('Payment Methods · AI Media Dashboard');
    await page.getByTestId('sidebar').getByRole('link', { name: 'Task Logs' }).click();
    await expect(title).toHaveText('Task Logs');
    await expect(page).toHaveTitle('Task Logs · AI Media Dashboard');
  });

  test('wide screens use their width: the Midjourney tool and Payment Methods fill a 1440 px screen', async ({ context, page }) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const user = await createUser('wide', { onboarded: true });
    await signIn(context, user);
    await page.goto('/dashboard/tools/midjourney');
    await expectMidjourney(page);
    const width = async (testId: string) => (await page.getByTestId(testId).boundingBox())?.width ?? 0;
    // 1440 − 240 px sidebar − 2 × 32 px padding = 1136 px of content.
    await expect.poll(() => width('screen-midjourney')).toBeGreaterThan(1100);
    await page.goto('/dashboard/billing/payment-methods');
    await expect(page.getByTestId('screen-payment-methods')).toBeVisible();
    await expect.poll(() => width('screen-payment-methods')).toBeGreaterThan(1100);
  });

  test('a dismissed banner stays dismissed after reload, and only for the user who dismissed it', async ({ context }) => {
    const [first, second] = await Promise.all([createUser('dismisser', { onboarded: true }), createUser('newreader', { onboarded: true })]);
    const page = await context.newPage();
    await signIn(page, first);
    await page.goto('/dashboard/tools/midjourney');
    await expectMidjourney(page);
    const banner = page.getByTestId('promo-banner');
    await expect(banner).toContainText('Generate AI Videos with Midjourney. Try it now');
    await expect(banner.getByRole('link', { name: 'Try it now' })).toHaveAttribute('target', '_blank');
    await page.getByTestId('banner-dismiss').click();
    await expect(banner).toBeHidden();

    await page.reload();
    await expectMidjourney(page);
    await expect(banner).toBeHidden();
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('aim.banner.')))).toEqual([`aim.banner.dismissed.v1:${first.id}`]);

    // Same browser profile (same local storage), another person: the banner is theirs to dismiss.
    await page.getByTestId('logout').click();
    await expect(page).toHaveURL(/\/auth$/);
    await expect(page.getByTestId('promo-banner')).toBeVisible();
    const next = await context.newPage();
    await signIn(next, second);
    await next.goto('/dashboard/tools/midjourney');
    await expectMidjourney(next);
    await expect(next.getByTestId('user-short-name')).toHaveText('newreader');
    await expect(next.getByTestId('promo-banner')).toBeVisible();
  });

  test('the theme is dark by default and a chosen theme survives reload', async ({ context, page }) => {
    const user = await createUser('themer', { onboarded: true });
    await signIn(context, user);
    await page.goto('/dashboard/tools/midjourney');
    await expectMidjourney(page);
    expect(await themeClass(page)).toContain('dark');
    await expect(page.getByTestId('theme-switch')).toHaveValue('dark');
    await screenshot(page, 'dashboard-dark');

    await page.getByTestId('theme-switch').selectOption('light');
    await expect.poll(() => themeClass(page)).toContain('light');
    await page.reload();
    await expectMidjourney(page);
    expect(await themeClass(page)).toContain('light');
    expect(await themeClass(page)).not.toContain('dark');
    await expect(page.getByTestId('theme-switch')).toHaveValue('light');
    await screenshot(page, 'dashboard-light');
  });

  test('the credits in the top bar follow the balance on the server without a reload', async ({ context, page }) => {
    const user = await createUser('spender', { onboarded: true });
    await signIn(context, user);
    // The app's realtime subscription to its mdusers row must be live before the change.
    let subscribed = false;
    page.on('websocket', (ws) =>
      ws.on('framereceived', ({ payload }) => {
        const text = typeof payload === 'string' ? payload : payload.toString();
        if (text.includes('phx_reply') && text.includes('"status":"ok"') && text.includes('mdusers')) subscribed = true;
      }),
    );
    await page.goto('/dashboard/tools/midjourney');
    await expectMidjourney(page);
    const credits = page.getByTestId('credits-count');
    await expect(credits).toHaveText(formatCredits(user.row.credits));
    await expect.poll(() => subscribed, { message: 'realtime join for mdusers acknowledged' }).toBe(true);

    const raised = await applyCredit(user.id, 1_500, 'e2e top-up');
    expect(raised).toBe(user.row.credits + 1_500);
    await expect(credits).toHaveText(formatCredits(raised));
    const lowered = await applyCredit(user.id, -250, 'e2e spend');
    await expect(credits).toHaveText(formatCredits(lowered));
  });
});
