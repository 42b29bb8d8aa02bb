import { Box } from '@chakra-ui/react';
import { Navigate } from 'react-router-dom';
import { useUserRow } from '@aim/shared-kit/session';
import { RemoteSlot } from '../mf/remote-slot.tsx';
import { FullPageLoading } from './full-page-loading.tsx';

/** /welcome: the onboarding remote, unless the user is already onboarded. */
export function WelcomeRoute() {
  const { status, row } = useUserRow();
  if (status !== 'ready' && status !== 'error') return <FullPageLoading />;
  if (row?.onboarded) return <Navigate to="/dashboard/tools/midjourney" replace />;
  return (
    <Box minH="100vh" bg="bg" p={{ base: 4, md: 10 }}>
      <RemoteSlot remote="mfe_onboarding" props={{ basename: '/' }} />
    </Box>
  );
}
