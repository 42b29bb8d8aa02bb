import { useEffect } from 'react';
import { signOut } from '@aim/shared-kit/session';
import type { BillingGateway } from './billing-gateway.ts';

// One creation per user and page, however many billing screens and dialogs ask at once.
const started = new Set<string>();

/**
 * Spec §4: the payment customer is created when customer_id is empty, and if that fails the user
 * is logged out (a dashboard whose payments cannot work is not left half usable).
 */
export async function ensureCustomer(
  gateway: BillingGateway,
  row: { id: string; customer_id: string | null } | null,
  logOut: () => Promise<void> = signOut,
): Promise<void> {
  if (!row || row.customer_id || !gateway.ready || started.has(row.id)) return;
  started.add(row.id);
  try {
    await gateway.createCustomer();
  } catch {
    started.delete(row.id);
    await logOut();
  }
}

export function useEnsureCustomer(gateway: BillingGateway, row: { id: string; customer_id: string | null } | null, active = true): void {
  const id = row?.id;
  const hasCustomer = !!row?.customer_id;
  useEffect(() => {
    if (active && id && !hasCustomer) void ensureCustomer(gateway, { id, customer_id: null });
  }, [gateway, id, hasCustomer, active]);
}
