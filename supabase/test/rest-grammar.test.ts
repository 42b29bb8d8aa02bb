import { describe, expect, it } from 'vitest';
import { RestError, statusForSqlState } from '../src/rest/errors.ts';
import { parseLogic, parseOperation, parseOrder, parseSelect, parseFilter, parsePrefer, parseRangeHeader, splitTopLevel } from '../src/rest/grammar.ts';
import { Params, renderCondition, ident, arrayLiteral } from '../src/rest/sql.ts';

describe('SQLSTATE → HTTP status (PostgREST errors.rst)', () => {
  it.each([
    ['08006', 'authenticated', 503],
    ['09000', 'authenticated', 500],
    ['0L000', 'authenticated', 403],
    ['0P000', 'authenticated', 403],
    ['23503', 'authenticated', 409],
    ['23505', 'authenticated', 409],
    ['25006', 'authenticated', 405],
    ['25P02', 'authenticated', 500],
    ['28000', 'authenticated', 403],
    ['2D000', 'authenticated', 500],
    ['38001', 'authenticated', 500],
    ['39001', 'authenticated', 500],
    ['3B000', 'authenticated', 500],
    ['40001', 'authenticated', 500],
    ['53400', 'authenticated', 500],
    ['53300', 'authenticated', 503],
    ['54000', 'authenticated', 500],
    ['55P03', 'authenticated', 500],
    ['57014', 'authenticated', 500],
    ['58000', 'authenticated', 500],
    ['F0000', 'authenticated', 500],
    ['HV000', 'authenticated', 500],
    ['P0001', 'authenticated', 400],
    ['P0402', 'authenticated', 500],
    ['XX000', 'authenticated', 500],
    ['42883', 'authenticated', 404],
    ['42P01', 'authenticated', 404],
    ['42P17', 'authenticated', 500],
    ['42501', 'authenticated', 403],
    ['42501', 'service_role', 403],
    ['42501', 'anon', 401],
    ['23502', 'authenticated', 400],
    ['22P02', 'anon', 400],
    ['42703', 'authenticated', 400],
    ['21000', 'authenticated', 400],
  ])('%s as %s → %i', (code, role, status) => {
    expect(statusForSqlState(code, role)).toBe(status);
  });
});

function sqlOf(key: string, value: string) {
  const p = new Params();
  const cond = key === 'or' || key === 'and' || key.startsWith('not.') ? parseLogic(key, value) : parseFilter(key, value);
  return { sql: renderCondition(cond, 't', p), params: p.values };
}

function pgrstError(fn: () => unknown): RestError {
  try {
    fn();
  } catch (e) {
    if (e instanceof RestError) return e;
    throw e;
  }
  throw new Error('expected a RestError');
}

describe('URL grammar', () => {
  it('splits at top level only, respecting quotes and parentheses', () => {
    expect(splitTopLevel('a,"b,c",in.(d,e),f')).toEqual(['a', '"b,c"', 'in.(d,e)', 'f']);
    expect(pgrstError(() => splitTopLevel('a,(b')).body.code).toBe('PGRST100');
  });

  it('renders comparison filters with bound values', () => {
    expect(sqlOf('name', 'eq.a,b.c')).toEqual({ sql: 't."name" = $1', params: ['a,b.c'] });
    expect(sqlOf('n', 'not.gte.5')).toEqual({ sql: 'not (t."n" >= $1)', params: ['5'] });
    expect(sqlOf('name', 'ilike.*foo bar*')).toEqual({ sql: 't."name" ilike $1', params: ['%foo bar%'] });
    expect(sqlOf('name', 'like(any).{a*,b*}')).toEqual({ sql: 't."name" like any($1)', params: ['{a%,b%}'] });
    expect(sqlOf('v', 'isdistinct.x')).toEqual({ sql: 't."v" is distinct from $1', params: ['x'] });
    expect(sqlOf('v', 'imatch.^a')).toEqual({ sql: 't."v" ~* $1', params: ['^a'] });
    expect(sqlOf('doc', 'fts(english).cat')).toEqual({ sql: 't."doc" @@ to_tsquery($1::regconfig, $2)', params: ['english', 'cat'] });
  });

  it('renders in/is', () => {
    expect(sqlOf('tag', 'in.(a,"b,c","d\\"")')).toEqual({ sql: 't."tag" = any($1)', params: ['{"a","b,c","d\\""}'] });
    expect(sqlOf('tag', 'in.()')).toEqual({ sql: 't."tag" = any($1)', params: ['{}'] });
    expect(sqlOf('d', 'is.null').sql).toBe('t."d" is null');
    expect(sqlOf('d', 'not.is.NULL').sql).toBe('not (t."d" is null)');
    expect(sqlOf('d', 'is.not_null').sql).toBe('t."d" is not null');
    expect(sqlOf('d', 'is.unknown').sql).toBe('t."d" is unknown');
    expect(pgrstError(() => parseOperation('is.maybe', false)).body.code).toBe('PGRST100');
  });

  it('renders JSON paths with bound keys', () => {
    expect(sqlOf('result->songs->0->>audio_url', 'eq.x')).toEqual({
      sql: 't."result"->$1::text->$2::int->>$3::text = $4',
      params: ['songs', '0', 'audio_url', 'x'],
    });
  });

  it('parses nested logic trees with quoted values', () => {
    const r = sqlOf('or', '(status.eq.open,priority.gt.3,and(c.lt.3,not.d.is.null),name.eq."a,b",tag.in.(x,"y,z"))');
    expect(r.sql).toBe('(t."status" = $1 or t."priority" > $2 or (t."c" < $3 and not (t."d" is null)) or t."name" = $4 or t."tag" = any($5))');
    expect(r.params).toEqual(['open', '3', '3', 'a,b', '{"x","y,z"}']);
    expect(sqlOf('not.and', '(a.eq.1,b.eq.2)').sql).toBe('not (t."a" = $1 and t."b" = $2)');
    expect(sqlOf('and', '(a.eq.1,not.or(b.eq.2,c.eq.3))').sql).toBe('(t."a" = $1 and not (t."b" = $2 or t."c" = $3))');
  });

  it.each([
    ['id', 'eq'],
    ['id', '5'],
    ['id', 'bogus.5'],
    ['id', 'gt(some).x'],
    ['doc', 'fts(eng-lish).x'],
    ['id', 'in.a,b'],
    ['id', 'in.(a,"b)'],
    ['', 'eq.1'],
    ['a->', 'eq.1'],
  ])('rejects malformed filter %s=%s with PGRST100', (key, value) => {
    const e = pgrstError(() => parseFilter(key, value));
    expect(e.status).toBe(400);
    expect(e.body.code).toBe('PGRST100');
  });

  it.each(['a.eq.1', '(a.eq.1', '()', '(a.eq.1,)', '(a)', '(and(a.eq.1)', '(a.zz.1)'])('rejects malformed logic tree or=%s', (value) => {
    expect(pgrstError(() => parseLogic('or', value)).body.code).toBe('PGRST100');
  });

  it('quotes hostile identifiers', () => {
    expect(ident('a"; drop table x; --')).toBe('"a""; drop table x; --"');
    expect(pgrstError(() => ident('a\0b')).body.code).toBe('PGRST100');
    expect(arrayLiteral(['"', '\\'])).toBe('{"\\"","\\\\"}');
  });

  it('parses select lists', () => {
    expect(parseSelect('id,n:name,age::text,"full name",data->a->>b', 't')).toEqual([
      { kind: 'column', field: { name: 'id', path: [] }, alias: undefined, cast: undefined },
      { kind: 'column', field: { name: 'name', path: [] }, alias: 'n', cast: undefined },
      { kind: 'column', field: { name: 'age', path: [] }, alias: undefined, cast: 'text' },
      { kind: 'column', field: { name: 'full name', path: [] }, alias: undefined, cast: undefined },
      {
        kind: 'column',
        field: {
          name: 'data',
          path: [
            { arrow: '->', key: 'a' },
            { arrow: '->>', key: 'b' },
          ],
        },
        alias: undefined,
        cast: undefined,
      },
    ]);
    expect(parseSelect('*', 't')).toEqual([{ kind: 'star' }]);
    expect(pgrstError(() => parseSelect('id,owner:profiles(id)', 'tasks')).body).toMatchObject({ code: 'PGRST200' });
    expect(pgrstError(() => parseSelect('count()', 'tasks')).body).toMatchObject({ code: 'PGRST123' });
    expect(pgrstError(() => parseSelect('id::text);drop table x', 'tasks')).body).toMatchObject({ code: 'PGRST100' });
    expect(pgrstError(() => parseSelect('id,,name', 'tasks')).body).toMatchObject({ code: 'PGRST100' });
  });

  it('parses order terms', () => {
    expect(parseOrder('created_at.desc.nullslast,id')).toEqual([
      { field: { name: 'created_at', path: [] }, direction: 'desc', nulls: 'last' },
      { field: { name: 'id', path: [] } },
    ]);
    expect(parseOrder('"a.b".asc')).toEqual([{ field: { name: 'a.b', path: [] }, direction: 'asc' }]);
    expect(pgrstError(() => parseOrder('id.sideways')).body.code).toBe('PGRST100');
  });

  it('reads Prefer and Range', () => {
    const p = parsePrefer(['return=representation, count=exact,resolution=merge-duplicates']);
    expect([p.get('return'), p.get('count'), p.get('resolution')]).toEqual(['representation', 'exact', 'merge-duplicates']);
    expect(parseRangeHeader('0-9')).toEqual({ offset: 0, limit: 10 });
    expect(parseRangeHeader('5-')).toEqual({ offset: 5 });
    expect(parseRangeHeader('junk')).toBeUndefined();
    expect(pgrstError(() => parseRangeHeader('9-1')).status).toBe(416);
  });
});
