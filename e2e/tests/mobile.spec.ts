import { expect, test } from '@playwright/test';
import { onboardingStatusWith } from '../support/api-keys.ts';
import { screenshot } from '../support/journeys.ts';
import { DASHBOARD_SCREENS, WELCOME_SCREEN, horizontalOverflow, openScreen } from '../support/screens.ts';
import { createUser, signIn } from '../support/users.ts';

const PHONE = { width: 390, height: 844 };

test.describe('on a phone (390×844)', () => {
  test.use({ viewport: PHONE });

  test('no screen scrolls sideways or reaches past the screen edge', async ({ context, page }) => {
    test.setTimeout(120_000);
    const user = await createUser('phone');
    await signIn(context, user);
    const overflowing: string[] = [];
    await openScreen(page, WELCOME_SCREEN);
    for (const found of await horizontalOverflow(page)) overflowing.push(`${WELCOME_SCREEN.path}: ${found}`);
    expect(await onboardingStatusWith(user.row.api_key)).toBe(200);

    for (const screen of DASHBOARD_SCREENS) {
      await openScreen(page, screen);
      await expect(page.getByTestId('sidebar')).toBeHidden();
      await expect(page.getByTestId('screen-title')).toHaveText(screen.title);
      for (const found of await horizontalOverflow(page)) overflowing.push(`${screen.path}: ${found}`);
    }
    expect(overflowing, overflowing.join('\n')).toEqual([]);
    await screenshot(page, 'phone-task-logs');

    // A dialog fits the screen too.
    await page.getByRole('button', { name: 'Buy credits' }).click();
    const dialog = page.getByTestId('top-up-dialog');
    await expect(dialog).toBeVisible();
    const box = await dialog.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= PHONE.width, `top-up dialog at ${JSON.stringify(box)}`).toBe(true);
    expect(await horizontalOverflow(page)).toEqual([]);
    await screenshot(page, 'phone-top-up-dialog');
  });

  test('the menu button opens the sidebar as a drawer: it traps focus, Escape closes it, a link navigates and closes it', async ({ context, page }) => {
    const user = await createUser('drawer', { onboarded: true });
    await signIn(context, user);
    await openScreen(page, DASHBOARD_SCREENS[0]!);
    await expect(page.getByTestId('sidebar')).toBeHidden();
    const menu = page.getByRole('button', { name: 'Open menu' });
    const drawer = page.getByRole('dialog', { name: 'AI Media' });

    await menu.click();
    await expect(drawer).toBeVisible();
    // From the left edge once it has slid in, narrower than the screen.
    await expect.poll(async () => (await drawer.boundingBox())?.x).toBe(0);
    expect((await drawer.boundingBox())?.width).toBeLessThan(PHONE.width);
    await expect(drawer.getByRole('navigation', { name: 'Main' }).getByRole('link')).toHaveCount(9);
    await expect(drawer.getByTestId('user-short-name')).toHaveText('drawer');
    await screenshot(page, 'phone-drawer');
    // Focus stays inside while it is open, however far one tabs.
    for (let i = 0; i < 16; i++) {
      await page.keyboard.press('Tab');
      expect(await drawer.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect(drawer).toBeHidden();
    await expect(menu).toBeFocused();

    await menu.press('Enter');
    await expect(drawer).toBeVisible();
    await drawer.getByRole('link', { name: 'Subscription' }).click();
    await expect(drawer).toBeHidden();
    await expect(page).toHaveURL(/\/dashboard\/billing\/subscription$/);
    await expect(page.getByTestId('screen-subscription')).toBeVisible();
    await expect(page.getByTestId('screen-title')).toHaveText('Subscription');

    // The current screen's link closes it as well.
    await menu.click();
    await drawer.getByRole('link', { name: 'Subscription' }).click();
    await expect(drawer).toBeHidden();

    // Logout is in the drawer too.
    await menu.click();
    await drawer.getByRole('button', { name: 'Logout' }).click();
    await expect(page).toHaveURL(/\/auth$/);
  });
});
