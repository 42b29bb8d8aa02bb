import { matchRoutes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { routes } from '../src/app.tsx';
import { AiPhotosRoute } from '../src/routes/ai-photos.tsx';
import { FaceswapRoute } from '../src/routes/faceswap.tsx';
import { MidjourneyRoute } from '../src/routes/midjourney.tsx';

type Element = { type: unknown; props: Record<string, unknown> };

/** What a route renders: a tool's screen component, or the heading's test id. */
function screenOf(element: Element | undefined): string | null {
  if (!element) return null;
  if (element.type === MidjourneyRoute) return 'midjourney';
  if (element.type === FaceswapRoute) return 'faceswap';
  if (element.type === AiPhotosRoute) return 'ai-photos';
  return (element.props.testId ?? element.props['data-testid']) as string;
}

describe('mfe_tools routes under /dashboard', () => {
  it.each([
    ['/dashboard', 'midjourney'],
    ['/dashboard/tools/midjourney', 'midjourney'],
    ['/dashboard/tools/ai-photos', 'ai-photos'],
    ['/dashboard/tools/faceswap', 'faceswap'],
    ['/dashboard/tools/bulk-tasks', 'screen-bulk-tasks'],
    ['/dashboard/tools/nope', null],
  ])('%s -> %s', (pathname, screen) => {
    expect(screenOf(matchRoutes(routes, pathname, '/dashboard')?.[0]?.route.element as Element | undefined)).toBe(screen);
  });
});
