import type { TestProject } from 'vitest/node';
import { startPostgres, type RunningPostgres } from './postgres-server.ts';
import { testDatabaseKinds } from './databases.ts';

let running: RunningPostgres | undefined;

/** Starts one PostgreSQL for the whole run when the postgres leg is enabled. */
export async function setup(project: TestProject) {
  if (testDatabaseKinds().includes('postgres')) {
    running = await startPostgres();
    project.provide('pgAdminUrl', running.url);
  } else {
    project.provide('pgAdminUrl', null);
  }
}

export async function teardown() {
  await running?.stop();
}
