import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { supabaseAliases } from '../mf-shared.ts';
import * as unused from '../src/supabase-unused.ts';

// The browser builds alias @supabase/storage-js and @supabase/functions-js to supabase-unused.ts:
// it must provide every name supabase-js imports from them, or the build breaks (or, worse, a
// class is undefined at createClient time) after a supabase-js upgrade.
const supabaseJs = readFileSync(
  createRequire(import.meta.url)
    .resolve('@supabase/supabase-js')
    .replace(/index\.cjs$/, 'index.mjs'),
  'utf8',
);

function importedNames(pkg: string): string[] {
  const line = supabaseJs.split('\n').find((l) => l.startsWith('import {') && l.includes(`"${pkg}"`));
  return (/\{([^}]*)\}/.exec(line ?? '')?.[1] ?? '')
    .split(',')
    .map((s) => s.trim().split(' as ')[0]!)
    .filter(Boolean);
}

describe('the Storage/Functions stand-in for supabase-js', () => {
  it.each(['@supabase/storage-js', '@supabase/functions-js'])('provides every name supabase-js imports from %s', (pkg) => {
    const names = importedNames(pkg);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((n) => !(n in unused))).toEqual([]);
    expect(Object.keys(supabaseAliases)).toContain(`${pkg}$`);
  });

  it('fails loudly when used', async () => {
    expect(() => new unused.StorageClient().from()).toThrow('Supabase Storage is not bundled');
    await expect(new unused.FunctionsClient().invoke()).rejects.toThrow('Supabase Edge Functions is not bundled');
  });
});
