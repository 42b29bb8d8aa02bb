// Everything the API Keys page asks of the outside world, behind one interface so the screen can be
// tested with a fake: the account calls of the provider API (spec §7) and the clipboard.
import { useMemo } from 'react';
import { useApiClient, type ApiClient } from '@aim/shared-kit/api';
import { refreshUserRow } from '@aim/shared-kit/session';
import { webhookRequestBody } from './key-rules.ts';

export type ApiKeysGateway = {
  /** POST /auth/revokeAndCreateNewAPIKey: answers the new key; the old one is refused from now on. */
  rotateKey(): Promise<string>;
  /** POST /auth/updateWebhookURL: answers the stored URL, null when removed. */
  updateWebhookUrl(input: string): Promise<string | null>;
  copyText(text: string): Promise<void>;
};

function createApiKeysGateway(api: ApiClient, afterChange: () => Promise<void>): ApiKeysGateway {
  // The page reports failures itself (toast with its own title, alert), not the client's toast.
  const quiet = { toastOnError: false };
  return {
    async rotateKey() {
      const { api_key } = await api.post<{ api_key: string }>('/auth/revokeAndCreateNewAPIKey', undefined, quiet);
      void afterChange();
      return api_key;
    },
    async updateWebhookUrl(input) {
      const answer = await api.post<{ integration_webhook_url: string | null }>('/auth/updateWebhookURL', webhookRequestBody(input), quiet);
      void afterChange();
      return answer.integration_webhook_url;
    },
    copyText: (text) => navigator.clipboard.writeText(text),
  };
}

/**
 * The gateway for the signed-in user. After a change the user row is re-read at once: the API
 * client authenticates with the row's key, which a rotation has just revoked.
 */
export function useApiKeysGateway(): ApiKeysGateway {
  const api = useApiClient();
  return useMemo(() => createApiKeysGateway(api, refreshUserRow), [api]);
}
