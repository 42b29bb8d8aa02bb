import { matchRoutes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { routes } from '../src/app.tsx';

describe('mfe_onboarding routes under /', () => {
  it.each([
    ['/welcome', 'Welcome'],
    ['/welcome/extra', null],
  ])('%s -> %s', (pathname, title) => {
    const element = matchRoutes(routes, pathname, '/')?.[0]?.route.element as { props: { title: string } } | undefined;
    expect(element?.props.title ?? null).toBe(title);
  });
});
