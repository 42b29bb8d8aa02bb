import { matchRoutes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { routes } from '../src/app.tsx';

describe('mfe_developer routes under /dashboard', () => {
  it.each([
    ['/dashboard/api-keys', 'API Keys'],
    ['/dashboard/task-logs', 'Task Logs'],
    ['/dashboard/keys', null],
  ])('%s -> %s', (pathname, title) => {
    const element = matchRoutes(routes, pathname, '/dashboard')?.[0]?.route.element as { props: { title: string } } | undefined;
    expect(element?.props.title ?? null).toBe(title);
  });
});
