import { getRuntimeConfig } from '@aim/shared-kit/runtime-config';
import { useUserRow } from '@aim/shared-kit/session';
import { TOAST_MS, toaster } from '@aim/shared-kit/toast';
import { ApiKeysPage, type Notices } from '../features/api-keys/api-keys-page.tsx';
import { useApiKeysGateway } from '../features/api-keys/gateway.ts';

const notices: Notices = {
  success: (title) => toaster.create({ type: 'success', title, duration: TOAST_MS.short }),
  error: (title, reason) => toaster.create({ type: 'error', title, description: reason ?? undefined, duration: TOAST_MS.short }),
  alert: (message) => window.alert(message),
};

/** /dashboard/api-keys (?language=nodejs|python|php|curl&requestType=generate|fetch). */
export function ApiKeysRoute() {
  const gateway = useApiKeysGateway();
  const { status, row } = useUserRow();
  const account = row?.api_key ? { apiKey: row.api_key, webhookUrl: row.integration_webhook_url } : null;
  return <ApiKeysPage gateway={gateway} account={account} loadFailed={status === 'error'} apiBaseUrl={getRuntimeConfig().apiBaseUrl} notices={notices} />;
}
