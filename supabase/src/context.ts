import type { Db } from './db/index.ts';
import type { LocalSupabaseConfig } from './config.ts';
import type { DevMailbox } from './mailbox.ts';

/** What every local service (auth, rest, realtime) is built from. */
export interface LocalContext {
  db: Db;
  config: LocalSupabaseConfig;
  mailbox: DevMailbox;
  log: (line: string) => void;
}
