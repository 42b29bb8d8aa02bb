import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { onboardingStatusWith } from '../support/api-keys.ts';
import { screenshot } from '../support/journeys.ts';
import { useTheme } from '../support/onboarding.ts';
import { DASHBOARD_SCREENS, WELCOME_SCREEN, openScreen, type Screen } from '../support/screens.ts';
import { createUser, signIn } from '../support/users.ts';

/** axe-core's serious and critical violations on the page as it is now, one readable line per element. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help}\n    at ${n.target.join(' ')}\n    ${n.failureSummary?.replace(/\n/g, ' ') ?? ''}\n    ${n.html}`),
    );
}

async function expectAccessible(page: Page, screen: Screen, theme: string): Promise<void> {
  await openScreen(page, screen);
  await expect.poll(() => page.evaluate(() => document.documentElement.className)).toContain(theme);
  const found = await seriousViolations(page);
  expect(found, `axe on ${screen.path} (${theme}):\n${found.join('\n')}`).toEqual([]);
}

test.describe('accessibility', () => {
  // 13 screens in two themes, each settled and checked by axe: minutes on a busy 2-core machine.
  test.setTimeout(300_000);

  test('axe finds no serious or critical violation on any signed-in screen, in dark and in light', async ({ context, page }) => {
    const user = await createUser('a11y');
    await signIn(context, user);

    // The wizard first: a user who has finished it is sent on to the dashboard.
    await expectAccessible(page, WELCOME_SCREEN, 'dark');
    await useTheme(context, 'light');
    await expectAccessible(page, WELCOME_SCREEN, 'light');
    expect(await onboardingStatusWith(user.row.api_key)).toBe(200);

    for (const screen of DASHBOARD_SCREENS) await expectAccessible(page, screen, 'light');
    await screenshot(page, 'a11y-task-logs-light');

    // Once, the way a person does it: the theme switch in the top bar.
    await page.getByTestId('theme-switch').selectOption('dark');
    for (const screen of DASHBOARD_SCREENS) await expectAccessible(page, screen, 'dark');

    // The frame's own dialog, open over a screen.
    await page.getByRole('button', { name: 'Buy credits' }).click();
    await expect(page.getByTestId('top-up-dialog')).toBeVisible();
    const inDialog = await seriousViolations(page);
    expect(inDialog, `axe with the top-up dialog open:\n${inDialog.join('\n')}`).toEqual([]);
  });
});
