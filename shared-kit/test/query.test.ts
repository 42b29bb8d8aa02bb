import { describe, expect, it } from 'vitest';
import { createQueryClient, getQueryClient } from '../src/query.tsx';

describe('the page’s QueryClient', () => {
  it('is one object for every caller of the module (the MF singleton shares the module itself)', () => {
    expect(getQueryClient()).toBe(getQueryClient());
    expect(createQueryClient()).not.toBe(getQueryClient());
  });

  it('shows failures at once and refetches only when a screen asks', () => {
    const { queries, mutations } = getQueryClient().getDefaultOptions();
    expect(queries).toMatchObject({ retry: false, refetchOnWindowFocus: false, refetchOnReconnect: false });
    expect(mutations).toMatchObject({ retry: false });
  });
});
