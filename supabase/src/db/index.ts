export type { Db, Queryable, QueryResult, PgError, Statement } from './types.ts';
export { isPgError } from './types.ts';
export { openPglite } from './pglite.ts';
export { openPostgres } from './postgres.ts';
export { migrate, listMigrations } from './migrate.ts';
