import { Navigate } from '@aim/shared-kit/router';
import { useUserRow } from '@aim/shared-kit/session';
import { FullPageLoading } from './full-page-loading.tsx';

function landingPath(onboarded: boolean | null | undefined): string {
  return onboarded ? '/dashboard/tools/midjourney' : '/welcome';
}

/** /maybe: the post-login landing rule. Onboarded users go to the Midjourney tool, others to /welcome. */
export function LandingRoute() {
  const { status, row } = useUserRow();
  if (status === 'ready' || status === 'error') return <Navigate to={landingPath(row?.onboarded)} replace />;
  return <FullPageLoading />;
}
