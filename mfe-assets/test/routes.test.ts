import { matchRoutes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { routes } from '../src/app.tsx';
import { ImagesRoute } from '../src/routes/images.tsx';

describe('mfe_assets routes under /dashboard', () => {
  it.each([
    ['/dashboard/assets/images', 'Images'],
    ['/dashboard/assets/videos', 'Videos'],
    ['/dashboard/assets/audio', 'Audios'],
    ['/dashboard/assets/other', null],
  ])('%s -> %s', (pathname, title) => {
    const element = matchRoutes(routes, pathname, '/dashboard')?.[0]?.route.element as { type: unknown; props: { title: string } } | undefined;
    expect(element?.type === ImagesRoute ? 'Images' : (element?.props.title ?? null)).toBe(title);
  });
});
