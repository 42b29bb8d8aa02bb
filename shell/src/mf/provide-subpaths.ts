// The shell can only *provide* shared modules that are in its own build graph. A remote importing
// a subpath the shell never imports gets a private copy (a second jotai store, a second Supabase
// client). Keep this list a superset of what remotes import.
export * as jotaiReact from 'jotai/react';
export * as jotaiUtils from 'jotai/utils';
export * as kitApi from '@aim/shared-kit/api';
export * as kitDialogShell from '@aim/shared-kit/dialog-shell';
export * as kitDomain from '@aim/shared-kit/domain';
export * as kitDownload from '@aim/shared-kit/download';
export * as kitFormat from '@aim/shared-kit/format';
export * as kitInstanceReport from '@aim/shared-kit/instance-report';
export * as kitRemote from '@aim/shared-kit/remote';
export * as kitRouter from '@aim/shared-kit/router';
export * as kitRuntimeConfig from '@aim/shared-kit/runtime-config';
export * as kitSession from '@aim/shared-kit/session';
export * as kitSupabase from '@aim/shared-kit/supabase';
export * as kitTheme from '@aim/shared-kit/theme';
export * as kitToast from '@aim/shared-kit/toast';
export * as kitUi from '@aim/shared-kit/ui';
export * as kitValidate from '@aim/shared-kit/validate';

/**
 * Provided but loaded only when a remote asks for it: TanStack Query (the server-state layer of
 * the billing, developer and assets remotes) stays off the shell's and the Midjourney tool's
 * critical path. A dynamic import keeps it in the shell's graph (so provided, one instance).
 */
export const kitQuery = () => import('@aim/shared-kit/query');
