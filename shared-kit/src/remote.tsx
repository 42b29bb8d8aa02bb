import type { ReactNode } from 'react';
import { matchRoutes, useLocation } from 'react-router-dom';

/** What the shell passes to every remote's exposed `./App`. */
export type RemoteAppProps = {
  /** URL prefix under which the remote's routes live, e.g. '/dashboard'. */
  basename: string;
};

/** What the shell passes to mfe-billing's `./TopUpDialog`. */
export type TopUpDialogProps = {
  open: boolean;
  onOpenChange: (open: boolean) => void;
};

export type RemoteRoute = { path?: string; index?: boolean; element: ReactNode };

/**
 * Renders the remote route matching the current location below `basename`. Matching against the
 * full URL (not React Router's relative descendant <Routes>) lets the shell mount a remote under any
 * route, also ones whose path has no trailing '*', and lets one remote own paths in several places.
 */
export function RemoteRoutes({ basename, routes, fallback = null }: RemoteAppProps & { routes: RemoteRoute[]; fallback?: ReactNode }) {
  const location = useLocation();
  const matches = matchRoutes(
    routes.map(({ path, index, element }) => (index ? { index: true, element } : { path, element })),
    location,
    basename,
  );
  return <>{matches?.[0]?.route.element ?? fallback}</>;
}

/** Joins a basename and a relative path: ('/dashboard', 'api-keys') -> '/dashboard/api-keys'. */
export function joinPath(basename: string, path: string): string {
  return `${basename.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
