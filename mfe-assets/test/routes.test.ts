import { matchRoutes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { routes } from '../src/app.tsx';
import { ImagesRoute } from '../src/routes/images.tsx';
import { MediaRoute } from '../src/routes/media.tsx';

describe('mfe_assets routes under /dashboard', () => {
  it.each([
    ['/dashboard/assets/images', 'Images'],
    ['/dashboard/assets/videos', 'Videos'],
    ['/dashboard/assets/audio', 'Audios'],
    ['/dashboard/assets/other', null],
  ])('%s -> %s', (pathname, title) => {
    const element = matchRoutes(routes, pathname, '/dashboard')?.[0]?.route.element as { type: unknown; props: { kind?: string } } | undefined;
    const screen =
      element?.type === ImagesRoute
        ? 'Images'
        : element?.type === MediaRoute
          ? { videos: 'Videos', audio: 'Audios' }[element.props.kind as 'videos' | 'audio']
          : null;
    expect(screen).toBe(title);
  });
});
