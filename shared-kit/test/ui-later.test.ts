import { createElement as h, type ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ChakraProvider } from '@chakra-ui/react';
import { system } from '../src/theme.tsx';
import { DataList, Menu, Progress, RadioCard, RadioGroup, SegmentGroup, Slider, Switch, Table, preloadLaterUi } from '../src/ui.ts';

// ui.ts ships some components lazily (their chunk loads after the first render) together with
// their recipes, which theme.tsx's system no longer has. A lazy part renders nothing until the chunk
// is there, then the real Chakra part styled by the recipe its root passes.
const render = (node: ReactNode) => renderToString(h(ChakraProvider, { value: system, children: node }));

const table = () => h(Table.Root, { size: 'sm' }, h(Table.Body, null, h(Table.Row, null, h(Table.Cell, null, 'cell'))));

describe('the lazily shipped Chakra components', () => {
  it('render nothing before their chunk has loaded, then the real, styled parts', async () => {
    expect(render(table())).not.toContain('cell');
    await preloadLaterUi();
    const html = render(table());
    expect(html).toContain('cell');
    expect(html).toMatch(/<table[^>]*class="[^"]*chakra-table__root/);
    expect(html).toMatch(/<td[^>]*class="[^"]*chakra-table__cell/);
  });

  it.each([
    ['dataList', () => h(DataList.Root, null, h(DataList.Item, null, h(DataList.ItemLabel, null, 'Plan'), h(DataList.ItemValue, null, 'Pro')))],
    ['progress', () => h(Progress.Root, { value: 40 }, h(Progress.Track, null, h(Progress.Range)))],
    [
      'radioCard',
      () =>
        h(
          RadioCard.Root,
          { defaultValue: 'a' },
          h(RadioCard.Item, { value: 'a' }, h(RadioCard.ItemHiddenInput), h(RadioCard.ItemControl, null, h(RadioCard.ItemText, null, 'A'))),
        ),
    ],
    [
      'radioGroup',
      () =>
        h(
          RadioGroup.Root,
          { defaultValue: 'a' },
          h(RadioGroup.Item, { value: 'a' }, h(RadioGroup.ItemHiddenInput), h(RadioGroup.ItemIndicator), h(RadioGroup.ItemText, null, 'A')),
        ),
    ],
    [
      'segmentGroup',
      () =>
        h(
          SegmentGroup.Root,
          { defaultValue: 'a' },
          h(SegmentGroup.Indicator),
          h(SegmentGroup.Item, { value: 'a' }, h(SegmentGroup.ItemText, null, 'A'), h(SegmentGroup.ItemHiddenInput)),
        ),
    ],
    ['slider', () => h(Slider.Root, { defaultValue: [40] }, h(Slider.Control, null, h(Slider.Track, null, h(Slider.Range)), h(Slider.Thumbs)))],
    ['switch', () => h(Switch.Root, null, h(Switch.HiddenInput), h(Switch.Control), h(Switch.Label, null, 'On'))],
    [
      'menu',
      () =>
        h(
          Menu.Root,
          { open: true, children: null },
          h(Menu.Trigger, null, 'More'),
          h(Menu.Positioner, null, h(Menu.Content, null, h(Menu.Item, { value: 'x' }, 'X'))),
        ),
    ],
  ])('%s parts carry the classes of the recipe the root passes', async (name, node) => {
    await preloadLaterUi();
    const kebab = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    expect(render(node())).toContain(`chakra-${kebab}__`);
  });

  it('the system itself has none of these recipes (they ship with the components)', () => {
    for (const key of ['dataList', 'dialog', 'menu', 'progress', 'radioCard', 'radioGroup', 'segmentGroup', 'slider', 'switch', 'table', 'toast'])
      expect(system.isSlotRecipe(key)).toBe(false);
  });
});
