export type { Db, Queryable, QueryResult, PgError, Statement } from './types.ts';
export { isConnectionError, isPgError } from './types.ts';
export { retryOnConnectionLoss } from './retry.ts';
export { openPglite } from './pglite.ts';
export { openPostgres } from './postgres.ts';
export { migrate, listMigrations } from './migrate.ts';
