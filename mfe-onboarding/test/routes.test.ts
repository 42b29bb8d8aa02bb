import { matchRoutes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { routes } from '../src/app.tsx';
import { WelcomeRoute } from '../src/routes/welcome.tsx';

describe('mfe_onboarding routes under /', () => {
  it.each([
    ['/welcome', true],
    ['/welcome/extra', false],
    ['/dashboard', false],
  ])('%s -> wizard: %s', (pathname, wizard) => {
    const element = matchRoutes(routes, pathname, '/')?.[0]?.route.element as { type: unknown } | undefined;
    expect(element?.type === WelcomeRoute).toBe(wizard);
  });
});
