// The credits each action costs, shown on its button (Imagine 4, Upscale 4, …). The prices come
// from the server's catalog the dashboard already reads, GET /billing/config (`actions`, the table
// every submit holds from; GET /pricing lists the same). Without a provider (or until the catalog
// arrives, or when it cannot be read) the buttons show no price: never a guessed one.
import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { useApi } from '@aim/shared-kit/api';
import { useUserRow } from '@aim/shared-kit/session';
import { chakra } from '@aim/shared-kit/ui';

/** Credits per task type (per unit for the types priced per photo or second). */
export type ActionPrices = Readonly<Record<string, number>>;

type CatalogAction = { type: string; credits: number };

const ActionPricesContext = createContext<ActionPrices | null>(null);

export function ActionPricesProvider({ prices, children }: { prices: ActionPrices | null; children: ReactNode }) {
  return <ActionPricesContext.Provider value={prices}>{children}</ActionPricesContext.Provider>;
}

/** The catalog's `actions` as a lookup. */
export function pricesOf(actions: readonly CatalogAction[] | undefined): ActionPrices | null {
  return actions ? Object.fromEntries(actions.map((a) => [a.type, a.credits])) : null;
}

/** The provider of the remote's screens: the catalog read once with the signed-in user's API client. */
export function ApiActionPricesProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const hasKey = !!useUserRow().row?.api_key;
  const [prices, setPrices] = useState<ActionPrices | null>(null);
  useEffect(() => {
    if (!hasKey) return;
    const abort = new AbortController();
    api
      .get('/billing/config', { toastOnError: false, signal: abort.signal })
      .then((config) => setPrices(pricesOf(config.actions)))
      // no catalog: the buttons show no price
      .catch(() => undefined);
    return () => abort.abort();
  }, [api, hasKey]);
  return <ActionPricesProvider prices={prices}>{children}</ActionPricesProvider>;
}

/** What an action of `type` costs (× `quantity` for the types priced per unit); null when not known. */
function useActionPrice(type: string, quantity = 1): number | null {
  const credits = useContext(ActionPricesContext)?.[type];
  return credits === undefined ? null : credits * quantity;
}

/**
 * The cost beside a button's label. Hidden from assistive technology, so the button's name stays
 * its action; the title says it in words.
 */
export function CostTag({ type, quantity }: { type: string; quantity?: number }) {
  const credits = useActionPrice(type, quantity);
  if (credits === null) return null;
  return (
    <chakra.span
      aria-hidden
      title={`${credits} credit${credits === 1 ? '' : 's'}`}
      ms="1.5"
      px="1.5"
      rounded="l1"
      bg="bg.emphasized"
      color="fg.muted"
      fontSize="0.85em"
      fontWeight="medium"
      data-testid={`cost-${type}`}
    >
      {credits}
    </chakra.span>
  );
}
