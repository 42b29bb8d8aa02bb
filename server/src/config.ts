/**
 * @module The provider API's configuration: what changes between embedded mode and production.
 * main.ts reads the environment and builds it; tests build it inline.
 */
import { DEFAULT_JWT_SECRET } from '@aim/supabase';

export interface ApiConfig {
  /** Embedded mode (one process, PGlite, local adapters) rather than a production deployment. */
  embedded: boolean;
  /** Public origin of this API, shown in the OpenAPI document and the docs page. */
  publicUrl: string;
  /** Dashboard origins allowed to call with credentials (exact match, e.g. http://localhost:3000). */
  corsOrigins: string[];
  /** Largest request body accepted, in bytes (default 1 MiB); larger bodies get 413. */
  maxBodyBytes?: number;
  /**
   * Sell tasks whose only engine is a simulated one (the local engine's procedural pictures)
   * outside embedded mode too (ALLOW_SIMULATED_ENGINES=true). Off: they are refused at submit.
   */
  allowSimulatedEngines?: boolean;
  /**
   * The Supabase project's JWT secret (JWT_SECRET): verifies the dashboard session that the
   * calls moving money or changing credentials require. Default: the local services' secret.
   */
  jwtSecret?: string;
}

/** The secret dashboard sessions are verified with (the local services' default when unset). */
export function jwtSecretOf(config: ApiConfig): string {
  return config.jwtSecret || DEFAULT_JWT_SECRET;
}

/** JSON calls are small; routes that take files get their own limits when they arrive. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
