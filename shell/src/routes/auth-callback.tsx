import { useEffect } from 'react';
import { Navigate } from 'react-router-dom';
import { CALLBACK_RELOAD_MS } from '@aim/shared-kit/domain';
import { useSession } from '@aim/shared-kit/session';
import { FullPageLoading } from './full-page-loading.tsx';

/**
 * /auth/callback: supabase-js exchanges the PKCE code from the URL while this shows Loading...;
 * once a session exists we go to /maybe. Spec §2: the page reloads after 2 seconds, which retries
 * an exchange that raced with a slow start.
 */
export function AuthCallbackRoute() {
  const { status } = useSession();
  useEffect(() => {
    const timer = setTimeout(() => window.location.reload(), CALLBACK_RELOAD_MS);
    return () => clearTimeout(timer);
  }, []);
  if (status === 'signed-in') return <Navigate to="/maybe" replace />;
  return <FullPageLoading />;
}
