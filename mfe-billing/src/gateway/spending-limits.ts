// GET/POST /auth/spending-limits (server/src/routes/spending-limits.ts): the account's spending
// controls, what they count this month, and the last charge each refused. The database
// enforces them when a top-up or auto top-up is opened (docs/decisions/0014-spending-controls.md).
import type { ApiSchema } from '@aim/shared-kit/api';

export type SpendingLimitsInput = ApiSchema<'SpendingLimitsRequest'>;

export type SpendingLimits = ApiSchema<'SpendingLimitsResponse'>;
