// The typed client's schema: openapi-typescript's rendering of the app's OpenAPI document, built
// in-process (no port; the document comes from route schemas, so a throwaway PGlite is enough).
// `pnpm --filter @aim/shared-kit gen:api` writes it; test/api-schema.test.ts fails when it is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { createTestDb } from '@aim/supabase/testing';
import { createApiApp } from '../src/app.ts';
import type { Logger } from '../src/logger.ts';

export const API_SCHEMA_FILE = fileURLToPath(new URL('../../shared-kit/src/api-schema.ts', import.meta.url));

const HEADER = `// Generated from the server's OpenAPI document by \`pnpm --filter @aim/shared-kit gen:api\`
// (server/scripts/api-schema.ts). Do not edit: server/test/api-schema.test.ts fails when it is stale.
`;

const quiet: Logger = { info: () => {}, error: () => {} };

/** The document as GET /openapi.json answers it. */
async function readDocument(): Promise<object> {
  const db = await createTestDb('pglite');
  try {
    const app = createApiApp({ db, config: { embedded: true, publicUrl: 'http://localhost:8080', corsOrigins: [] }, log: quiet });
    const res = await app.request('/openapi.json');
    if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`);
    return (await res.json()) as object;
  } finally {
    await db.close();
  }
}

/** The schema file's text for the current routes. */
export async function renderApiSchema(): Promise<string> {
  // biome-ignore lint/suspicious/noExplicitAny: openapi-typescript types the document as its own OpenAPI3 shape
  const ast = await openapiTS((await readDocument()) as any, { exportType: true });
  return HEADER + astToString(ast);
}

export async function readCommittedApiSchema(): Promise<string> {
  return readFile(API_SCHEMA_FILE, 'utf8');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeFile(API_SCHEMA_FILE, await renderApiSchema());
  console.log(`wrote ${API_SCHEMA_FILE}`);
}
