import { useEffect, useState } from 'react';
import { Navigate } from '@aim/shared-kit/router';
import { CALLBACK_RELOAD_MS } from '@aim/shared-kit/domain';
import { useSession } from '@aim/shared-kit/session';
import { callbackError } from '../features/login/callback-error.ts';
import { FullPageLoading } from './full-page-loading.tsx';

/** What /auth/callback hands to /auth when the redirect brought an error instead of a session. */
export interface CallbackErrorState {
  callbackError: string;
}

/**
 * /auth/callback: supabase-js exchanges the PKCE code from the URL while this shows Loading...;
 * once a session exists we go to /maybe. Spec §2: the page reloads after 2 seconds, which retries
 * an exchange that raced with a slow start. A redirect that carries an error (GitHub consent
 * cancelled, link expired or used) goes back to sign-in with the reason instead: reloading
 * could never turn it into a session.
 */
export function AuthCallbackRoute() {
  const { status } = useSession();
  const [error] = useState(() => callbackError(window.location));
  useEffect(() => {
    if (error) return;
    const timer = setTimeout(() => window.location.reload(), CALLBACK_RELOAD_MS);
    return () => clearTimeout(timer);
  }, [error]);
  if (status === 'signed-in') return <Navigate to="/maybe" replace />;
  if (error) return <Navigate to="/auth" replace state={{ callbackError: error } satisfies CallbackErrorState} />;
  return <FullPageLoading />;
}
