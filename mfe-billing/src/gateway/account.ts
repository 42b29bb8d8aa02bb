import type { UserRow } from '@aim/shared-kit/session';

/** The live mdusers row with the auto top-up health columns billing added (spec §3 User). */
export type BillingAccount = UserRow & { auto_topup_failures?: number; auto_topup_disabled_reason?: string | null };
