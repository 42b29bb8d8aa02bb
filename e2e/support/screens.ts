// Every screen a signed-in user can open, for the journeys that walk them all (accessibility,
// phone layout). From the shell's route table (shell/src/app.tsx, spec §2).
import { expect, type Page } from '@playwright/test';

export type Screen = { path: string; testId: string; title: string };

/** The dashboard's screens, each with the test id of its root and the title the top bar shows. */
export const DASHBOARD_SCREENS: readonly Screen[] = [
  { path: '/dashboard/tools/midjourney', testId: 'screen-midjourney', title: 'Midjourney' },
  { path: '/dashboard/tools/ai-photos', testId: 'screen-ai-photos', title: 'AI Photos' },
  { path: '/dashboard/tools/faceswap', testId: 'screen-faceswap', title: 'Faceswap' },
  { path: '/dashboard/tools/bulk-tasks', testId: 'screen-bulk-tasks', title: 'Bulk Tasks' },
  { path: '/dashboard/assets/images', testId: 'screen-images', title: 'Images' },
  { path: '/dashboard/assets/videos', testId: 'screen-videos', title: 'Videos' },
  { path: '/dashboard/assets/audio', testId: 'screen-audio', title: 'Audios' },
  { path: '/dashboard/billing/subscription', testId: 'screen-subscription', title: 'Subscription' },
  { path: '/dashboard/billing/payment-methods', testId: 'screen-payment-methods', title: 'Payment Methods' },
  { path: '/dashboard/billing/invoices', testId: 'screen-invoices', title: 'Invoices' },
  { path: '/dashboard/api-keys', testId: 'screen-api-keys', title: 'API Keys' },
  { path: '/dashboard/task-logs', testId: 'screen-task-logs', title: 'Task Logs' },
];

/** The onboarding wizard, for a user who has not finished it (an onboarded one is sent on). */
export const WELCOME_SCREEN: Screen = { path: '/welcome', testId: 'screen-welcome', title: '' };

/**
 * Opens a screen and waits until it has settled: its root is shown and nothing on the page is
 * loading any more (no skeletons, no aria-busy region), so a check sees what a person reads.
 */
export async function openScreen(page: Page, screen: Screen): Promise<void> {
  await page.goto(screen.path);
  await expect(page.getByTestId(screen.testId)).toBeVisible();
  await expect.poll(() => page.locator('.chakra-skeleton, [aria-busy="true"]').count(), { message: `${screen.path} finishes loading` }).toBe(0);
}

/**
 * What overflows the viewport sideways: the page's own scroll width, and the elements that
 * reach past either edge without a scroll (or clipping) container around them. Empty = fits.
 */
export function horizontalOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    const found: string[] = [];
    if (root.scrollWidth > width) found.push(`the page scrolls sideways: scrollWidth ${root.scrollWidth} > ${width}`);
    const contained = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== 'visible') return true;
      }
      return false;
    };
    for (const el of document.body.querySelectorAll('*')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || (box.left >= -1 && box.right <= width + 1) || contained(el)) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.position === 'fixed') continue;
      const id = el.getAttribute('data-testid') ?? el.getAttribute('aria-label') ?? (el.textContent ?? '').trim().slice(0, 40);
      found.push(`<${el.tagName.toLowerCase()}> "${id}" spans ${Math.round(box.left)}..${Math.round(box.right)} px of ${width}`);
    }
    return found.slice(0, 10);
  });
}
