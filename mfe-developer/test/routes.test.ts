import { matchRoutes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { routes } from '../src/app.tsx';
import { ApiKeysRoute } from '../src/routes/api-keys.tsx';
import { TaskLogsRoute } from '../src/routes/task-logs.tsx';

type Element = { type: unknown; props: Record<string, unknown> };

/** What a route renders: the API Keys screen component, or the placeholder's title. */
function screenOf(element: Element | undefined): string | null {
  if (!element) return null;
  if (element.type === ApiKeysRoute) return 'API Keys';
  if (element.type === TaskLogsRoute) return 'Task Logs';
  return element.props.title as string;
}

describe('mfe_developer routes under /dashboard', () => {
  it.each([
    ['/dashboard/api-keys', 'API Keys'],
    ['/dashboard/task-logs', 'Task Logs'],
    ['/dashboard/keys', null],
  ])('%s -> %s', (pathname, title) => {
    expect(screenOf(matchRoutes(routes, pathname, '/dashboard')?.[0]?.route.element as Element | undefined)).toBe(title);
  });
});
