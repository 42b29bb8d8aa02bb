import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultSystem } from '@chakra-ui/react';
import { system } from '../src/theme.tsx';
import * as later from '../src/ui-later.ts';

// theme.tsx carries the recipes of the components ui.ts re-exports only, and Chakra renders a
// component whose recipe is missing unstyled, silently. This walks Chakra's own ES sources from
// each ui.ts export through every relative import and collects the recipe keys they ask for.
const here = path.dirname(fileURLToPath(import.meta.url));
const chakraEsm = path.join(path.dirname(createRequire(import.meta.url).resolve('@chakra-ui/react')), '../esm');

function uiExports(): string[] {
  // ui-later.ts: the components ui.ts ships lazily (with their own recipes, see below).
  return ['../src/ui.ts', '../src/ui-later.ts'].flatMap((file) => {
    const source = readFileSync(path.join(here, file), 'utf8');
    const block = /export \{([^}]*)\} from '@chakra-ui\/react';/.exec(source)?.[1] ?? '';
    return block
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  });
}

/** Recipe keys that ship with the lazy components instead of the theme ('<key>SlotRecipe' exports). */
const shippedLater = Object.keys(later)
  .filter((name) => name.endsWith('SlotRecipe'))
  .map((name) => name.slice(0, -'SlotRecipe'.length));

/** The file each name comes from, per Chakra's index.js (direct re-exports and namespaces). */
function exportFiles(names: string[]): string[] {
  const lines = readFileSync(path.join(chakraEsm, 'index.js'), 'utf8').split('\n');
  return names.map((name) => {
    const exported = new RegExp(`[{,\\s]([\\w$]+\\s+as\\s+)?${name}[,\\s}]`);
    const line = lines.find((l) => l.startsWith('export {') && exported.test(l));
    let from = line && /from '([^']+)'/.exec(line)?.[1];
    const local = line && new RegExp(`([\\w$]+)\\s+as\\s+${name}[,\\s}]`).exec(line)?.[1];
    if (!from && local) from = lines.map((l) => new RegExp(`import \\* as ${local.replace('$', '\\$')} from '([^']+)'`).exec(l)?.[1]).find(Boolean);
    if (!from) throw new Error(`${name} is not re-exported by @chakra-ui/react's index.js`);
    return path.join(chakraEsm, from);
  });
}

function recipeKeys(start: string[]): Set<string> {
  const keys = new Set<string>();
  const seen = new Set<string>();
  const queue = [...start];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:create(?:Slot)?RecipeContext|use(?:Slot)?Recipe)\(\s*\{\s*key:\s*"(\w+)"/g)) keys.add(m[1]!);
    for (const m of text.matchAll(/from '(\.{1,2}\/[^']+\.js)'/g)) {
      const target = path.resolve(path.dirname(file), m[1]!);
      // components only: the theme folder holds every recipe, the styled-system no component
      if (target.startsWith(path.join(chakraEsm, 'components'))) queue.push(target);
    }
  }
  return keys;
}

describe('the trimmed Chakra theme', () => {
  const keys = recipeKeys(exportFiles(uiExports()));

  it('finds the recipe keys of the re-exported components', () => {
    expect(keys.size).toBeGreaterThan(20);
    expect([...keys].sort()).toEqual(expect.arrayContaining(['alert', 'button', 'dialog', 'radiomark', 'toast']));
  });

  it("has every recipe of Chakra's default theme that a component ui.ts re-exports asks for", () => {
    const has = (sys: typeof system, key: string) => sys.isRecipe(key) || sys.isSlotRecipe(key);
    expect([...keys].filter((key) => has(defaultSystem, key) && !has(system, key) && !shippedLater.includes(key))).toEqual([]);
  });

  it('keeps the default tokens and adds the brand palette', () => {
    expect(system.token('colors.gray.500')).toBeTruthy();
    expect(system.token('colors.brand.500')).toBe('#7239ea');
    expect(system.token('spacing.4')).toBeTruthy();
  });
});
