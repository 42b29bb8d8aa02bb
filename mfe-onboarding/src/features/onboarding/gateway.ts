// The wizard's two calls to the provider API (spec §7), behind an interface so the screen can
// be tested with a fake. Errors are not toasted by the API client: the wizard shows them inline.
import { useMemo } from 'react';
import { type TypedApi, useApi } from '@aim/shared-kit/api';
import { useUserRow } from '@aim/shared-kit/session';
import type { OnboardingCalls } from './onboarding-model.ts';

export type OnboardingGateway = OnboardingCalls & {
  /** False until the user's API key is known: both calls need it. */
  ready: boolean;
};

const inline = { toastOnError: false } as const;

function createOnboardingGateway(api: TypedApi, ready: boolean): OnboardingGateway {
  return {
    ready,
    imagine: async (prompt) => (await api.post('/pro/imagine', { ...inline, body: { prompt } })).task_id,
    // The shell sees `onboarded` flip through the live user row; no re-read here, or its /welcome
    // guard would redirect to the tool before the wizard navigates to the goal's page.
    completeOnboarding: async () => void (await api.post('/auth/update-onboarding-status', inline)),
  };
}

/** The gateway for the signed-in user. */
export function useOnboardingGateway(): OnboardingGateway {
  const api = useApi();
  const { row } = useUserRow();
  const ready = !!row?.api_key;
  return useMemo(() => createOnboardingGateway(api, ready), [api, ready]);
}
