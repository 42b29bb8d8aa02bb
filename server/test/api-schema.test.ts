import { describe, expect, it } from 'vitest';
import { readCommittedApiSchema, renderApiSchema } from '../scripts/api-schema.ts';

describe('the typed client schema (shared-kit/src/api-schema.ts)', () => {
  it('should match the OpenAPI document the routes make now (run `pnpm --filter @aim/shared-kit gen:api` when it does not)', async () => {
    const [fresh, committed] = await Promise.all([renderApiSchema(), readCommittedApiSchema()]);
    expect(committed === fresh, 'shared-kit/src/api-schema.ts is stale: run `pnpm --filter @aim/shared-kit gen:api`').toBe(true);
  }, 60_000);
});
