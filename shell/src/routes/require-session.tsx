import { Navigate, Outlet } from '@aim/shared-kit/router';
import { useSession } from '@aim/shared-kit/session';
import { FullPageLoading } from './full-page-loading.tsx';

/** Spec §5: /dashboard (and every signed-in page) requires a session, else /auth. */
export function RequireSession() {
  const { status } = useSession();
  if (status === 'loading') return <FullPageLoading />;
  if (status === 'signed-out') return <Navigate to="/auth" replace />;
  return <Outlet />;
}
