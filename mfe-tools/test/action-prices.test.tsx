// @vitest-environment jsdom
import { cleanup, screen } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChakraProvider } from '@chakra-ui/react';
import { MemoryRouter } from 'react-router-dom';
import { system } from '@aim/shared-kit/theme';
import { FaceswapTool } from '../src/features/faceswap/faceswap-tool.tsx';
import { MidjourneyTool } from '../src/features/midjourney/midjourney-tool.tsx';
import { ActionPricesProvider, pricesOf } from '../src/features/pricing/action-prices.tsx';
import { fakeFaceswapGateway } from './support/fake-faceswap-gateway.ts';
import { fakeGateway, makeTask } from './support/fake-gateway.ts';

vi.setConfig({ testTimeout: 20_000 });

// the server's catalog (GET /billing/config `actions`), as the dashboard reads it
const PRICES = pricesOf([
  { type: 'imagine', credits: 4 },
  { type: 'shorten', credits: 2 },
  { type: 'reroll', credits: 4 },
  { type: 'seed', credits: 2 },
  { type: 'upscale-creative', credits: 4 },
  { type: 'variation-1', credits: 4 },
  { type: 'variation-2', credits: 4 },
  { type: 'variation-3', credits: 4 },
  { type: 'variation-4', credits: 4 },
  { type: 'faceswap', credits: 2 },
]);

function renderMidjourney(url: string, prices = PRICES) {
  const fake = fakeGateway([{ task: makeTask({ id: 'grid-1' }), archived: false }]);
  render(
    <ChakraProvider value={system}>
      <ActionPricesProvider prices={prices}>
        <MemoryRouter initialEntries={[url]}>
          <MidjourneyTool gateway={fake.gateway} mode="embedded" notifyError={vi.fn()} seedDelayMs={0} />
        </MemoryRouter>
      </ActionPricesProvider>
    </ChakraProvider>,
  );
}

afterEach(cleanup);

describe('the cost on each action button', () => {
  it('shows what Imagine and Shorten cost, keeping the buttons named by their action', () => {
    renderMidjourney('/dashboard/tools/midjourney');
    const imagine = screen.getByRole('button', { name: 'Imagine' });
    expect(imagine.textContent).toBe('Imagine4');
    expect(screen.getByTestId('cost-imagine').getAttribute('title')).toBe('4 credits');
    expect(screen.getByRole('button', { name: 'Shorten' }).textContent).toBe('Shorten2');
  });

  it('shows the price of Upscale, Variation, Reroll and Get Seed on a finished grid', async () => {
    renderMidjourney('/dashboard/tools/midjourney?taskId=grid-1');
    expect((await screen.findByRole('button', { name: 'Upscale image 2' })).textContent).toMatch(/^(Upscale|U2)4$/);
    expect(screen.getByRole('button', { name: 'Variation of image 3' }).textContent).toMatch(/^(Variation|V3)4$/);
    expect(screen.getByRole('button', { name: 'Reroll' }).textContent).toBe('Reroll4');
    expect(screen.getByRole('button', { name: 'Get Seed' }).textContent).toBe('Get Seed2');
  });

  it('shows no price while the catalog is unknown', () => {
    renderMidjourney('/dashboard/tools/midjourney', null);
    expect(screen.getByRole('button', { name: 'Imagine' }).textContent).toBe('Imagine');
    expect(screen.queryByTestId('cost-imagine')).toBeNull();
  });

  it('shows the faceswap price on Generate', () => {
    const fake = fakeFaceswapGateway();
    render(
      <ChakraProvider value={system}>
        <ActionPricesProvider prices={PRICES}>
          <MemoryRouter initialEntries={['/dashboard/tools/faceswap']}>
            <FaceswapTool gateway={fake.gateway} notifyError={vi.fn()} />
          </MemoryRouter>
        </ActionPricesProvider>
      </ChakraProvider>,
    );
    expect(screen.getByRole('button', { name: 'Generate' }).textContent).toBe('Generate2');
  });
});
