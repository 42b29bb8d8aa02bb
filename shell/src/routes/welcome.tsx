import { useRef } from 'react';
import { Box } from '@aim/shared-kit/ui';
import { Navigate } from '@aim/shared-kit/router';
import { useUserRow } from '@aim/shared-kit/session';
import { RemoteSlot } from '../mf/remote-slot.tsx';
import { FullPageLoading } from './full-page-loading.tsx';

/**
 * /welcome: the onboarding remote, unless the user was already onboarded when they came
 * here. Decided once: finishing the wizard flips `onboarded` live, and the wizard itself
 * then navigates to the goal's page (reacting to the live row would race it).
 */
export function WelcomeRoute() {
  const { status, row } = useUserRow();
  const onboardedOnEntry = useRef<boolean | undefined>(undefined);
  if (status !== 'ready' && status !== 'error') return <FullPageLoading />;
  onboardedOnEntry.current ??= Boolean(row?.onboarded);
  if (onboardedOnEntry.current) return <Navigate to="/dashboard/tools/midjourney" replace />;
  return (
    <Box minH="100vh" bg="bg" p={{ base: 4, md: 10 }}>
      <RemoteSlot remote="mfe_onboarding" props={{ basename: '/' }} />
    </Box>
  );
}
