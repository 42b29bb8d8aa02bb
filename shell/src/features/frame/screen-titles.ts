/** The tab title outside a named screen (rsbuild.config.ts `html.title`). */
export const APP_TITLE = 'AI Media Dashboard';

/**
 * Each dashboard screen's title, by its path (spec §2 names; the sidebar's labels where it has
 * one). The top bar shows it and the tab title starts with it.
 */
const SCREEN_TITLES: Readonly<Record<string, string>> = {
  '/dashboard': 'Midjourney',
  '/dashboard/tools/midjourney': 'Midjourney',
  '/dashboard/tools/ai-photos': 'AI Photos',
  '/dashboard/tools/faceswap': 'Faceswap',
  '/dashboard/tools/bulk-tasks': 'Bulk Tasks',
  '/dashboard/assets/images': 'Images',
  '/dashboard/assets/videos': 'Videos',
  '/dashboard/assets/audio': 'Audios',
  '/dashboard/billing/subscription': 'Subscription',
  '/dashboard/billing/payment-methods': 'Payment Methods',
  '/dashboard/billing/invoices': 'Invoices',
  '/dashboard/api-keys': 'API Keys',
  '/dashboard/task-logs': 'Task Logs',
};

/** The screen title for a location's pathname (a trailing slash is ignored), or null. */
export function screenTitle(pathname: string): string | null {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return SCREEN_TITLES[path] ?? null;
}

/** The document title: the screen first, so a row of tabs stays readable. */
export function documentTitle(title: string | null): string {
  return title ? `${title} · ${APP_TITLE}` : APP_TITLE;
}
