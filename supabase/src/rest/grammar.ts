import { parseError, RestError } from './errors.ts';

/**
 * PostgREST's URL grammar (docs/references/api/url_grammar.rst, tables_views.rst), parsed into
 * plain data. Nothing here builds SQL: names and values stay strings until sql.ts quotes
 * identifiers and binds values as parameters.
 */

interface JsonStep {
  arrow: '->' | '->>';
  key: string;
}

/** A column, optionally followed by a JSON path (`result->songs->0->>audio_url`). */
export interface Field {
  name: string;
  path: JsonStep[];
}

export type SelectItem = { kind: 'star' } | { kind: 'column'; field: Field; alias?: string; cast?: string };

const OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'match',
  'imatch',
  'in',
  'is',
  'isdistinct',
  'cs',
  'cd',
  'ov',
  'sl',
  'sr',
  'nxl',
  'nxr',
  'adj',
  'fts',
  'plfts',
  'phfts',
  'wfts',
] as const;
export type Operator = (typeof OPERATORS)[number];

const QUANTIFIABLE = new Set<Operator>(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch']);
const FTS = new Set<Operator>(['fts', 'plfts', 'phfts', 'wfts']);
const IS_VALUES = ['null', 'not_null', 'true', 'false', 'unknown'] as const;

export interface Operation {
  negate: boolean;
  op: Operator;
  /** `like(any).{a,b}`: the value is a Postgres array literal compared with ANY/ALL. */
  quantifier?: 'any' | 'all';
  /** `fts(english).q`: the text search configuration. */
  language?: string;
  /** The value; for `in`, the list. */
  value: string | string[];
}

export type Condition = ({ kind: 'filter'; field: Field } & Operation) | { kind: 'logic'; op: 'and' | 'or'; negate: boolean; children: Condition[] };

export interface OrderTerm {
  field: Field;
  direction?: 'asc' | 'desc';
  nulls?: 'first' | 'last';
}

/** Splits on `sep` at depth 0, outside double quotes (`\` escapes inside quotes). */
export function splitTopLevel(s: string, sep = ','): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === sep && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) throw parseError(`failed to parse "${s}"`, 'unbalanced parentheses');
  }
  if (quoted) throw parseError(`failed to parse "${s}"`, 'unterminated double quote');
  if (depth !== 0) throw parseError(`failed to parse "${s}"`, 'unbalanced parentheses');
  parts.push(s.slice(start));
  return parts;
}

/** `"a \"b\""` → `a "b"`; anything not wrapped in quotes is returned as is. */
function unquote(s: string): string {
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) return s.slice(1, -1).replace(/\\(.)/gs, '$1');
  return s;
}

/** Reads a name at the start of `s`: `"quoted name"` or everything up to the next `->`. */
function readName(s: string): { name: string; rest: string } {
  if (s.startsWith('"')) {
    let i = 1;
    for (; i < s.length; i++) {
      if (s[i] === '\\') i++;
      else if (s[i] === '"') break;
    }
    if (i >= s.length) throw parseError(`failed to parse "${s}"`, 'unterminated double quote');
    return { name: unquote(s.slice(0, i + 1)), rest: s.slice(i + 1) };
  }
  const end = s.indexOf('->');
  return end < 0 ? { name: s, rest: '' } : { name: s.slice(0, end), rest: s.slice(end) };
}

/** `col`, `col->a->>b`, `"my col"->0`. */
function parseField(s: string): Field {
  const { name, rest } = readName(s);
  if (!name) throw parseError(`failed to parse field "${s}"`, 'empty column name');
  const path: JsonStep[] = [];
  let tail = rest;
  while (tail) {
    const m = /^(->>?)/.exec(tail);
    if (!m) throw parseError(`failed to parse field "${s}"`);
    tail = tail.slice(m[1].length);
    const next = readName(tail);
    if (!next.name) throw parseError(`failed to parse field "${s}"`, 'empty JSON key');
    path.push({ arrow: m[1] as JsonStep['arrow'], key: next.name });
    tail = next.rest;
  }
  return { name, path };
}

/** The name a field gets in the output: the last JSON key, else the column. */
export function outputName(f: Field): string {
  return f.path.length ? f.path[f.path.length - 1].key : f.name;
}

const CAST = /^[A-Za-z_][A-Za-z0-9_]*(\[\])?$/;
const AGGREGATE = /^(?:[^:(]*\.)?(count|sum|avg|min|max)\(\)/;

/** Index of the first position outside double quotes where `find` holds. */
function indexOutsideQuotes(s: string, find: (s: string, i: number) => boolean): number {
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    if (quoted) {
      if (s[i] === '\\') i++;
      else if (s[i] === '"') quoted = false;
    } else if (s[i] === '"') quoted = true;
    else if (find(s, i)) return i;
  }
  return -1;
}

/**
 * The `select` list. Embedding (`rel(...)`) needs relationships we do not serve, and
 * aggregates are off by default in PostgREST; both answer with PostgREST's errors.
 */
export function parseSelect(raw: string | null, table: string): SelectItem[] {
  if (raw === null || raw === '') return [{ kind: 'star' }];
  return splitTopLevel(raw).map((item) => {
    if (item === '*') return { kind: 'star' } as const;
    if (!item) throw parseError(`failed to parse select parameter (${raw})`, 'empty select item');
    if (indexOutsideQuotes(item, (s, i) => s[i] === '(') >= 0) {
      if (AGGREGATE.test(item.replace(/^[^:]*:(?!:)/, ''))) {
        throw new RestError(400, 'PGRST123', 'Use of aggregate functions is not allowed');
      }
      const rel = item
        .replace(/^\.\.\./, '')
        .replace(/^[^:(]*:(?!:)/, '')
        .split(/[!(]/)[0];
      throw new RestError(
        400,
        'PGRST200',
        `Could not find a relationship between '${table}' and '${rel}' in the schema cache`,
        `Searched for a foreign key relationship between '${table}' and '${rel}' in the schema 'public', but no matches were found.`,
      );
    }
    let rest = item;
    let alias: string | undefined;
    const colon = indexOutsideQuotes(rest, (s, i) => s[i] === ':' && s[i + 1] !== ':' && s[i - 1] !== ':');
    if (colon >= 0) {
      alias = unquote(rest.slice(0, colon));
      rest = rest.slice(colon + 1);
      if (!alias) throw parseError(`failed to parse select parameter (${raw})`, 'empty alias');
    }
    let cast: string | undefined;
    const dc = indexOutsideQuotes(rest, (s, i) => s[i] === ':' && s[i + 1] === ':');
    if (dc >= 0) {
      cast = rest.slice(dc + 2);
      rest = rest.slice(0, dc);
      if (!CAST.test(cast)) throw parseError(`failed to parse select parameter (${raw})`, `invalid cast type "${cast}"`);
    }
    return { kind: 'column', field: parseField(rest), alias, cast };
  });
}

/**
 * `[not.]op[(any|all)|(language)].value`. In a logic tree values may be double-quoted
 * (`inTree`); at the top level everything after the operator is the value, verbatim.
 */
export function parseOperation(raw: string, inTree: boolean): Operation {
  let s = raw;
  let negate = false;
  if (s.startsWith('not.')) {
    negate = true;
    s = s.slice(4);
  }
  const m = /^([a-z]+)(?:\(([^)]*)\))?\.([\s\S]*)$/.exec(s);
  const op = m?.[1] as Operator | undefined;
  if (!m || !op || !(OPERATORS as readonly string[]).includes(op)) {
    throw parseError(`failed to parse filter (${raw})`, `expected "not" or an operator (${OPERATORS.join(', ')}) followed by "." and a value`);
  }
  const modifier = m[2];
  let value = m[3];
  const out: Operation = { negate, op, value };
  if (modifier !== undefined) {
    if (FTS.has(op)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(modifier)) throw parseError(`failed to parse filter (${raw})`, 'invalid text search configuration');
      out.language = modifier;
    } else if ((modifier === 'any' || modifier === 'all') && QUANTIFIABLE.has(op)) {
      out.quantifier = modifier;
    } else {
      throw parseError(`failed to parse filter (${raw})`, `unexpected modifier "${modifier}" for operator "${op}"`);
    }
  }
  if (inTree && op !== 'in') value = unquote(value);
  if (op === 'like' || op === 'ilike') value = value.replace(/\*/g, '%');
  if (op === 'in') {
    if (!value.startsWith('(') || !value.endsWith(')')) throw parseError(`failed to parse filter (${raw})`, 'the "in" operator expects a list: in.(a,b)');
    const inner = value.slice(1, -1);
    out.value = inner === '' ? [] : splitTopLevel(inner).map(unquote);
  } else if (op === 'is') {
    const v = value.toLowerCase();
    if (!(IS_VALUES as readonly string[]).includes(v)) {
      throw parseError(`failed to parse filter (${raw})`, `the "is" operator expects one of ${IS_VALUES.join(', ')}`);
    }
    out.value = v;
  } else {
    out.value = value;
  }
  return out;
}

/** A filter from the query string: `key=value` where key is a (JSON-path) column. */
export function parseFilter(key: string, value: string): Condition {
  return { kind: 'filter', field: parseField(key), ...parseOperation(value, false) };
}

/**
 * `rel.col` / `rel.order`: a parameter for an embedded resource (the dot comes before any
 * JSON arrow). Returns the resource name, or undefined for a plain column key.
 */
export function embeddedPrefix(key: string): string | undefined {
  const dot = indexOutsideQuotes(key, (s, i) => s[i] === '.');
  const arrow = indexOutsideQuotes(key, (s, i) => s[i] === '-' && s[i + 1] === '>');
  return dot >= 0 && (arrow < 0 || dot < arrow) ? unquote(key.slice(0, dot)) : undefined;
}

const LOGIC_KEY = /^(not\.)?(and|or)$/;

export function isLogicKey(key: string): boolean {
  return LOGIC_KEY.test(key);
}

/** `or=(a.eq.1,and(b.gt.2,not.c.is.null))` with the key giving the outer operator. */
export function parseLogic(key: string, value: string): Condition {
  const k = LOGIC_KEY.exec(key);
  if (!k) throw parseError(`failed to parse logic tree (${key})`);
  return parseLogicBody(!!k[1], k[2] as 'and' | 'or', value);
}

function parseLogicBody(negate: boolean, op: 'and' | 'or', body: string): Condition {
  if (!body.startsWith('(') || !body.endsWith(')')) throw parseError(`failed to parse logic tree (${body})`, 'expected "(" … ")"');
  const inner = body.slice(1, -1);
  if (!inner) throw parseError(`failed to parse logic tree (${body})`, 'empty logic tree');
  const children = splitTopLevel(inner).map((el): Condition => {
    const nested = /^(not\.)?(and|or)(?=\()/.exec(el);
    if (nested) return parseLogicBody(!!nested[1], nested[2] as 'and' | 'or', el.slice(nested[0].length));
    // both `col.not.op.v` (PostgREST) and `not.col.op.v` are accepted
    const negated = el.startsWith('not.');
    const filter = negated ? el.slice(4) : el;
    const dot = indexOutsideQuotes(filter, (s, i) => s[i] === '.');
    if (dot < 0) throw parseError(`failed to parse logic tree (${body})`, `"${el}" is not column.operator.value`);
    const operation = parseOperation(filter.slice(dot + 1), true);
    return { kind: 'filter', field: parseField(filter.slice(0, dot)), ...operation, negate: operation.negate !== negated };
  });
  return { kind: 'logic', op, negate, children };
}

/** `order=col.desc.nullslast,col2`. */
export function parseOrder(raw: string): OrderTerm[] {
  return splitTopLevel(raw).map((term) => {
    const dot = indexOutsideQuotes(term, (s, i) => s[i] === '.');
    const out: OrderTerm = { field: parseField(dot < 0 ? term : term.slice(0, dot)) };
    for (const mod of dot < 0 ? [] : term.slice(dot + 1).split('.')) {
      if (mod === 'asc' || mod === 'desc') out.direction = mod;
      else if (mod === 'nullsfirst') out.nulls = 'first';
      else if (mod === 'nullslast') out.nulls = 'last';
      else throw parseError(`failed to parse order (${raw})`, `unexpected "${mod}" expecting "asc", "desc", "nullsfirst" or "nullslast"`);
    }
    return out;
  });
}

/** A non-negative integer query parameter (limit, offset). */
export function parseCount(name: string, raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw parseError(`failed to parse ${name} (${raw})`, 'expected a non-negative integer');
  return Number(raw);
}

/** `columns="a","b"` / `on_conflict=a,b`. */
export function parseNameList(raw: string): string[] {
  const names = splitTopLevel(raw).map(unquote);
  if (names.some((n) => !n)) throw parseError(`failed to parse column list (${raw})`, 'empty column name');
  return names;
}

/** `Prefer: return=representation, count=exact` (values joined by the client with commas). */
export function parsePrefer(headers: (string | undefined)[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const h of headers) {
    for (const part of (h ?? '').split(',')) {
      const [k, v = ''] = part.trim().split('=');
      if (k) out.set(k.trim().toLowerCase(), v.trim().toLowerCase());
    }
  }
  return out;
}

/** `Range: 0-9` (Range-Unit items); `a-` means from a on. */
export function parseRangeHeader(raw: string | undefined): { offset: number; limit?: number } | undefined {
  if (!raw) return undefined;
  const m = /^(?:items=)?\s*(\d{1,15})-(\d{0,15})\s*$/.exec(raw);
  if (!m) return undefined;
  const offset = Number(m[1]);
  if (m[2] === '') return { offset };
  const last = Number(m[2]);
  if (last < offset)
    throw new RestError(
      416,
      'PGRST103',
      'Requested range not satisfiable',
      'The lower boundary must be lower than or equal to the upper boundary in the Range header.',
    );
  return { offset, limit: last - offset + 1 };
}
