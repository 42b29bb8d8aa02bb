export { createTestDb, testDatabaseKinds, type DbKind } from './databases.ts';
export { startPostgres, findPgBin, type RunningPostgres } from './postgres-server.ts';
export { startLocalSupabase, makeClient, memoryStorage, freePort, type RunningLocalSupabase } from './local-server.ts';
export { signInWithMagicLink } from './magic-link.ts';
export { dropListenConnection } from './listen-connection.ts';
