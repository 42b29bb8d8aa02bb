import { matchRoutes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { routes } from '../src/app.tsx';

describe('mfe_tools routes under /dashboard', () => {
  it.each([
    ['/dashboard', 'midjourney'],
    ['/dashboard/tools/midjourney', 'midjourney'],
    ['/dashboard/tools/ai-photos', 'ai-photos'],
    ['/dashboard/tools/faceswap', 'faceswap'],
    ['/dashboard/tools/bulk-tasks', 'screen-bulk-tasks'],
    ['/dashboard/tools/nope', null],
  ])('%s -> %s', (pathname, screen) => {
    const element = matchRoutes(routes, pathname, '/dashboard')?.[0]?.route.element as { props: Record<string, unknown> } | undefined;
    expect(element ? (element.props.testId ?? element.props['data-testid']) : null).toBe(screen);
  });
});
