// The billing screens' server state on the page's QueryClient (@aim/shared-kit/query): one key
// per resource, so a change invalidates exactly what it made stale.
import { useQuery } from '@aim/shared-kit/query';
import type { BillingConfig, BillingGateway } from './billing-gateway.ts';

export const billingKeys = {
  config: ['billing', 'config'] as const,
  cards: ['billing', 'payment-methods'] as const,
  invoices: (email: string | null) => ['billing', 'invoices', email] as const,
  spendingLimits: ['billing', 'spending-limits'] as const,
};

export type ConfigState = { status: 'loading'; config: null } | { status: 'ready'; config: BillingConfig } | { status: 'error'; config: null };

/**
 * GET /billing/config once the API key is known, asked once per page (it only changes with a
 * deploy; a failure is not kept: the next screen, or `retry`, asks again).
 */
export function useBillingConfig(gateway: BillingGateway): ConfigState & { retry: () => void } {
  const query = useQuery({ queryKey: billingKeys.config, queryFn: () => gateway.config(), enabled: gateway.ready, staleTime: Number.POSITIVE_INFINITY });
  const retry = () => void query.refetch();
  if (query.isFetching && !query.data) return { status: 'loading', config: null, retry };
  if (query.data) return { status: 'ready', config: query.data, retry };
  return query.isError ? { status: 'error', config: null, retry } : { status: 'loading', config: null, retry };
}
