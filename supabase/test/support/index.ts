export { createTestDb, testDatabaseKinds, type DbKind } from './databases.ts';
export { startPostgres, findPgBin, type RunningPostgres } from './postgres-server.ts';
