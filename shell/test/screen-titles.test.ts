import { describe, expect, it } from 'vitest';
import { APP_TITLE, documentTitle, screenTitle } from '../src/features/frame/screen-titles.ts';

describe('the screen title the top bar and the tab show', () => {
  it.each([
    ['/dashboard', 'Midjourney'],
    ['/dashboard/', 'Midjourney'],
    ['/dashboard/tools/midjourney', 'Midjourney'],
    ['/dashboard/tools/ai-photos', 'AI Photos'],
    ['/dashboard/tools/faceswap', 'Faceswap'],
    ['/dashboard/tools/bulk-tasks', 'Bulk Tasks'],
    ['/dashboard/assets/images', 'Images'],
    ['/dashboard/assets/videos', 'Videos'],
    ['/dashboard/assets/audio', 'Audios'],
    ['/dashboard/billing/subscription', 'Subscription'],
    ['/dashboard/billing/payment-methods/', 'Payment Methods'],
    ['/dashboard/billing/invoices', 'Invoices'],
    ['/dashboard/api-keys', 'API Keys'],
    ['/dashboard/task-logs', 'Task Logs'],
  ])('%s is %s', (path, title) => {
    expect(screenTitle(path)).toBe(title);
    expect(documentTitle(screenTitle(path))).toBe(`${title} · ${APP_TITLE}`);
  });

  it.each(['/', '/welcome', '/dashboard/unknown', '/dashboard/tools', '/dashboard/api-keys/extra'])('%s has none: the app title alone', (path) => {
    expect(screenTitle(path)).toBeNull();
    expect(documentTitle(screenTitle(path))).toBe('AI Media Dashboard');
  });
});
