import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Db } from './types.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MIGRATIONS_DIR = path.join(root, 'migrations');
const LOCAL_DIR = path.join(root, 'local');

async function sqlFiles(dir: string) {
  return (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
}

export async function listMigrations() {
  return sqlFiles(MIGRATIONS_DIR);
}

/**
 * Applies supabase/migrations/*.sql in name order, each once, recording them in
 * supabase_migrations.schema_migrations as the Supabase CLI does (so `supabase db push`
 * against a hosted project sees the same history). With `local: true` it then (re)applies
 * supabase/local/*.sql: the idempotent pieces only our local services need (realtime
 * triggers), never pushed to a hosted project.
 */
export async function migrate(db: Db, opts: { local?: boolean } = {}) {
  await db.exec(`
    create schema if not exists supabase_migrations;
    create table if not exists supabase_migrations.schema_migrations (
      version text primary key, statements text[], name text);
  `);
  const applied = new Set((await db.query<{ version: string }>('select version from supabase_migrations.schema_migrations')).rows.map((r) => r.version));
  const done: string[] = [];
  for (const file of await listMigrations()) {
    const [version, ...rest] = file.replace(/\.sql$/, '').split('_');
    if (applied.has(version)) continue;
    const sql = await readFile(path.join(MIGRATIONS_DIR, file), 'utf8');
    await db.transaction(async (tx) => {
      await tx.exec(sql);
      await tx.query('insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)', [version, rest.join('_'), [sql]]);
    });
    done.push(file);
  }
  if (opts.local) {
    for (const file of await sqlFiles(LOCAL_DIR)) {
      await db.exec(await readFile(path.join(LOCAL_DIR, file), 'utf8'));
    }
  }
  return done;
}
