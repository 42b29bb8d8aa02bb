/**
 * @module What the API is built from (deps) and the typed Hono context of its handlers.
 */
import type { Db } from '@aim/supabase/db';
import type { ApiConfig } from './config.ts';
import type { Logger } from './logger.ts';
import type { Account } from './repositories/user-repository.ts';

export interface ApiDeps {
  db: Db;
  config: ApiConfig;
  log: Logger;
}

/** Variables every request has (set by the request-id middleware). */
interface AppVariables {
  requestId: string;
}

export interface AppEnv {
  Variables: AppVariables;
}

/** Variables of a request that passed API-key authentication. */
export interface AuthedEnv {
  Variables: AppVariables & { account: Account };
}
