import { parseError } from './errors.ts';
import { outputName, type Condition, type Field, type Operator, type OrderTerm, type SelectItem } from './grammar.ts';

/**
 * SQL text from the parsed grammar. Identifiers are always double-quoted; every value from
 * the request is a bind parameter. Like PostgREST, values are bound untyped so Postgres
 * casts them to the column's type (`id=eq.<uuid>` compares as uuid).
 */

export class Params {
  /** Bound as text: Postgres casts each to the type the statement needs. */
  readonly values: string[] = [];
  add(value: string): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export function ident(name: string): string {
  // Postgres cannot carry NUL in query text; refuse it here instead of failing the protocol.
  if (name.includes('\0')) throw parseError('failed to parse identifier', 'identifiers cannot contain NUL');
  return `"${name.replace(/"/g, '""')}"`;
}

/** `"public"."tasks"`. */
export function qualified(schema: string, name: string): string {
  return `${ident(schema)}.${ident(name)}`;
}

/** A Postgres array literal of text elements, every element quoted. */
export function arrayLiteral(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

function renderField(f: Field, qualifier: string, p: Params): string {
  let sql = `${qualifier}.${ident(f.name)}`;
  for (const step of f.path) {
    sql += /^-?\d+$/.test(step.key) ? `${step.arrow}${p.add(step.key)}::int` : `${step.arrow}${p.add(step.key)}::text`;
  }
  return sql;
}

function renderSelect(items: SelectItem[], qualifier: string, p: Params): string {
  return items
    .map((item) => {
      if (item.kind === 'star') return `${qualifier}.*`;
      const expr = renderField(item.field, qualifier, p) + (item.cast ? `::${item.cast}` : '');
      return `${expr} as ${ident(item.alias ?? outputName(item.field))}`;
    })
    .join(', ');
}

const COMPARE: Partial<Record<Operator, string>> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'like',
  ilike: 'ilike',
  match: '~',
  imatch: '~*',
  isdistinct: 'is distinct from',
  cs: '@>',
  cd: '<@',
  ov: '&&',
  sl: '<<',
  sr: '>>',
  nxl: '&<',
  nxr: '&>',
  adj: '-|-',
};

const TSQUERY: Partial<Record<Operator, string>> = {
  fts: 'to_tsquery',
  plfts: 'plainto_tsquery',
  phfts: 'phraseto_tsquery',
  wfts: 'websearch_to_tsquery',
};

const IS_SQL: Record<string, string> = {
  null: 'is null',
  not_null: 'is not null',
  true: 'is true',
  false: 'is false',
  unknown: 'is unknown',
};

export function renderCondition(c: Condition, qualifier: string, p: Params): string {
  let sql: string;
  if (c.kind === 'logic') {
    sql = `(${c.children.map((child) => renderCondition(child, qualifier, p)).join(c.op === 'and' ? ' and ' : ' or ')})`;
  } else {
    const field = renderField(c.field, qualifier, p);
    const value = c.value;
    if (c.op === 'in') {
      sql = `${field} = any(${p.add(arrayLiteral(value as string[]))})`;
    } else if (c.op === 'is') {
      sql = `${field} ${IS_SQL[value as string]}`;
    } else if (TSQUERY[c.op]) {
      const config = c.language ? `${p.add(c.language)}::regconfig, ` : '';
      sql = `${field} @@ ${TSQUERY[c.op]}(${config}${p.add(value as string)})`;
    } else if (c.quantifier) {
      sql = `${field} ${COMPARE[c.op]} ${c.quantifier}(${p.add(value as string)})`;
    } else {
      // only `in` carries a list (above)
      sql = `${field} ${COMPARE[c.op]} ${p.add(value as string)}`;
    }
  }
  return c.negate ? `not ${sql.startsWith('(') ? sql : `(${sql})`}` : sql;
}

export function renderWhere(conditions: Condition[], qualifier: string, p: Params): string {
  return conditions.length ? ` where ${conditions.map((c) => renderCondition(c, qualifier, p)).join(' and ')}` : '';
}

export function renderOrder(terms: OrderTerm[], qualifier: string, p: Params): string {
  if (!terms.length) return '';
  const parts = terms.map((t) => {
    let s = renderField(t.field, qualifier, p);
    if (t.direction) s += ` ${t.direction}`;
    if (t.nulls) s += ` nulls ${t.nulls}`;
    return s;
  });
  return ` order by ${parts.join(', ')}`;
}

/** What to put around a set of rows to get PostgREST's response columns. */
export interface RowsQuery {
  /** `with …` prefix (writes' RETURNING, RPC calls), or empty. */
  cte: string;
  /** The relation rows come from (after `from`), and how its columns are qualified. */
  from: string;
  qualifier: string;
  select: SelectItem[];
  where: string;
  order: string;
  limit?: number;
  offset?: number;
  /** Also compute the total of matching rows (Prefer: count=…). */
  count: boolean;
  /** setof <scalar> functions: rows are bare values in column pgrst_scalar. */
  scalarRows?: boolean;
}

/**
 * One statement that returns total (or null), page (rows in the page), body (JSON array
 * text) and first (the first element as JSON text). Postgres builds the JSON itself, so
 * every type serializes exactly as PostgREST's json_agg does.
 */
export function rowsSql(q: RowsQuery, p: Params): string {
  const list = q.scalarRows ? `${q.qualifier}.pgrst_scalar` : renderSelect(q.select, q.qualifier, p);
  const limit = q.limit === undefined ? '' : ` limit ${p.add(String(q.limit))}::bigint`;
  const offset = q.offset ? ` offset ${p.add(String(q.offset))}::bigint` : '';
  const inner = `select ${list} from ${q.from}${q.where}${q.order}${limit}${offset}`;
  const total = q.count ? `(select pg_catalog.count(*) from ${q.from}${q.where})` : 'null::bigint';
  const row = q.scalarRows ? 'pgrst_rows.pgrst_scalar' : 'pgrst_rows';
  return (
    `${q.cte}select ${total} as total, pg_catalog.count(*) as page, ` +
    `coalesce(pg_catalog.json_agg(${row}), '[]')::text as body, (pg_catalog.json_agg(${row}) -> 0)::text as first ` +
    `from (${inner}) pgrst_rows`
  );
}
