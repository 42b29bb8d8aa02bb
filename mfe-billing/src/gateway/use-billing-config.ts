import { useCallback, useEffect, useState } from 'react';
import type { BillingConfig, BillingGateway } from './billing-gateway.ts';

export type ConfigState = { status: 'loading'; config: null } | { status: 'ready'; config: BillingConfig } | { status: 'error'; config: null };

/** GET /billing/config once the API key is known; `retry` asks again after a failure. */
export function useBillingConfig(gateway: BillingGateway): ConfigState & { retry: () => void } {
  const [state, setState] = useState<ConfigState>({ status: 'loading', config: null });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (!gateway.ready) return;
    let live = true;
    setState({ status: 'loading', config: null });
    gateway.config().then(
      (config) => live && setState({ status: 'ready', config }),
      () => live && setState({ status: 'error', config: null }),
    );
    return () => {
      live = false;
    };
  }, [gateway, attempt]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { ...state, retry };
}
