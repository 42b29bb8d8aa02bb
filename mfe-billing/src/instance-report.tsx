import * as React from 'react';
import { createPortal } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter } from '@aim/shared-kit/router';
import { useChakraContext } from '@aim/shared-kit/ui';
import { ThemeContext } from '@emotion/react';
import { useStore } from 'jotai';
import { useStore as useStoreFromSubpath } from 'jotai/react';
import { useInstanceReport } from '@aim/shared-kit/instance-report';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import { useSession } from '@aim/shared-kit/session';
import { getQueryClient } from '@aim/shared-kit/query';

// This bundle's own imports: the singleton check compares what each app resolved.
const modules = {
  React,
  createPortal,
  createRoot,
  createBrowserRouter,
  ThemeContext,
  useChakraContext,
  useStore,
  useStoreFromSubpath,
  getSupabaseClient,
  useSession,
  getQueryClient,
};

/** Reports the library instances this app resolved (see @aim/shared-kit/instance-report). */
export function InstanceReport({ name }: { name: string }) {
  useInstanceReport(name, modules);
  return null;
}
