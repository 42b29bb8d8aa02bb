import { describe, expect, it } from 'vitest';
import { compileFilter, parseSubscriptionParams, type SubscriptionParams } from '../src/realtime/filters.ts';

function params(p: Record<string, unknown>): SubscriptionParams {
  const r = parseSubscriptionParams(p);
  if (!r.ok) throw new Error(r.error);
  return r.params;
}

const types: Record<string, string> = { id: 'uuid', n: 'int4', name: 'text', done: 'bool', at: 'timestamptz', tags: '_text' };

/** Whether the row passes every filter of `filter` (all must be true, as Realtime ANDs them). */
function passes(filter: string, row: Record<string, unknown>) {
  const { filters } = params({ event: '*', schema: 'public', table: 't', filter });
  return filters.every((f) => compileFilter(f, types[f.column])(row) === true);
}

describe('realtime filter grammar', () => {
  it('parses Realtime subscription params and defaults', () => {
    expect(params({ event: 'update', schema: 'public', table: 'tasks', filter: 'id=eq.7' })).toEqual({
      event: 'UPDATE',
      schema: 'public',
      table: 'tasks',
      filters: [{ column: 'id', op: 'eq', value: '7' }],
    });
    expect(params({ event: 'whatever', schema: 'public' })).toMatchObject({ event: '*', table: '*' });
    expect(params({ table: 'tasks' })).toMatchObject({ schema: 'public', table: 'tasks' });
    expect(params({ schema: 'public', table: 't', filter: 'n=in.(1,2,3),name=eq."a,b"' }).filters).toEqual([
      { column: 'n', op: 'in', value: '{1,2,3}' },
      { column: 'name', op: 'eq', value: 'a,b' },
    ]);
  });

  it('rejects what Realtime rejects, with its messages', () => {
    const err = (p: Record<string, unknown>) => {
      const r = parseSubscriptionParams(p);
      return r.ok ? undefined : r.error;
    };
    expect(err({ schema: 'public', table: 't', filter: 'subject=foo.hey' })).toBe('Error parsing `filter` params: ["foo", "hey"]');
    // only eq, neq, lt, lte, gt, gte and in; no negation prefix
    expect(err({ schema: 'public', table: 't', filter: 'prompt=match.^(([a-z ])+)+[0-9]$' })).toBe(
      'Error parsing `filter` params: ["match", "^(([a-z ])+)+[0-9]$"]',
    );
    for (const op of ['imatch', 'like', 'ilike', 'is', 'isdistinct', 'cs', 'fts']) {
      expect(err({ schema: 'public', table: 't', filter: `name=${op}.x` })).toBe(`Error parsing \`filter\` params: ["${op}", "x"]`);
    }
    expect(err({ schema: 'public', table: 't', filter: 'n=not.eq.1' })).toBe('Error parsing `filter` params: ["not", "eq.1"]');
    expect(err({ schema: 'public', table: 't', filter: 'n=eq.1,name=like.a%' })).toBe('Error parsing `filter` params: ["like", "a%"]');
    expect(err({ schema: 'public', table: 't', filter: 'undefined' })).toBe('Error parsing `filter` params: ["undefined"]');
    expect(err({ schema: 'public', table: 't', filter: 'n=in.1,2' })).toBe('Error parsing `filter` params: `in` filter value must be wrapped by parentheses');
    expect(err({ schema: 'public', table: 't', filter: 'n=eq.1,,n=eq.2' })).toContain('empty segments');
    expect(err({})).toMatch(/^No subscription params provided/);
  });

  it('evaluates comparisons with the column type', () => {
    const row = { id: 'AAAAAAAA-1111-4111-8111-111111111111', n: 10, name: 'Cat', done: true, at: '2026-11-22T10:00:00.5+00:00', tags: ['a'] };
    expect(passes('id=eq.aaaaaaaa-1111-4111-8111-111111111111', row)).toBe(true);
    expect(passes('n=eq.10', row)).toBe(true);
    expect(passes('n=gt.9,n=lt.11', row)).toBe(true);
    expect(passes('n=gte.11', row)).toBe(false);
    expect(passes('n=neq.10', row)).toBe(false);
    expect(passes('n=in.(1,10)', row)).toBe(true);
    expect(passes('name=in.("Dog","Cat")', row)).toBe(true);
    expect(passes('name=eq.Cat', row)).toBe(true);
    expect(passes('name=gt.Ca', row)).toBe(true);
    expect(passes('done=eq.t', row)).toBe(true);
    expect(passes('at=gt.2026-11-22 09:59:59+00', row)).toBe(true);
    expect(passes('at=lt.2026-11-22T10:00:00Z', row)).toBe(false);
  });

  it('treats NULL as SQL does', () => {
    const row = { n: null, name: null };
    expect(passes('n=eq.1', row)).toBe(false);
    expect(passes('n=neq.1', row)).toBe(false);
    expect(passes('n=in.(1,2)', row)).toBe(false);
    expect(passes('name=gte.', row)).toBe(false);
  });

  it('refuses values that do not fit the column type', () => {
    const [f] = params({ schema: 'public', table: 't', filter: 'n=eq.abc' }).filters;
    expect(() => compileFilter(f, 'int4')).toThrow('invalid input syntax for type int4: "abc"');
  });

  it('caps an `in` list at 100 values, as realtime.subscription_check_filters does', () => {
    const list = (n: number) => `n=in.(${Array.from({ length: n }, (_, i) => i).join(',')})`;
    const [ok] = params({ schema: 'public', table: 't', filter: list(100) }).filters;
    expect(compileFilter(ok, 'int4')({ n: 99 })).toBe(true);
    const [tooMany] = params({ schema: 'public', table: 't', filter: list(101) }).filters;
    expect(() => compileFilter(tooMany, 'int4')).toThrow('ERROR P0001 (raise_exception) too many values for `in` filter. Maximum 100');
  });

  it('evaluates a hostile-looking value as a plain comparison, in linear time', () => {
    const [f] = params({ schema: 'public', table: 't', filter: `name=eq.${'(a+)+'.repeat(2000)}$` }).filters;
    const test = compileFilter(f, 'text');
    const started = performance.now();
    for (let i = 0; i < 1000; i++) expect(test({ name: `${'a'.repeat(5000)}!` })).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
