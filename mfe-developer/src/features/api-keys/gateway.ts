// Everything the API Keys page asks of the outside world, behind one interface so the screen can be
// tested with a fake: the account calls of the provider API (spec §7) and the clipboard.
import { useMemo } from 'react';
import { type TypedApi, useApi } from '@aim/shared-kit/api';
import { refreshUserRow } from '@aim/shared-kit/session';
import { webhookRequestBody } from './key-rules.ts';
import type { CreatedNamedKey, NamedKey, NewNamedKey } from './named-keys.ts';
import { deliveriesQuery, type Delivery, type PausedEndpoint, type SigningSecret, type StatusFilter, type WebhookEventName } from './webhook-rules.ts';

export type ApiKeysGateway = {
  /** POST /auth/revokeAndCreateNewAPIKey: answers the new key; the old one is refused from now on. */
  rotateKey(): Promise<string>;
  /** POST /auth/updateWebhookURL: answers the stored URL, null when removed. */
  updateWebhookUrl(input: string): Promise<string | null>;
  copyText(text: string): Promise<void>;
  /** GET /auth/webhook-signing-secret: the account's signing secret (made on first use). */
  getSigningSecret(): Promise<SigningSecret>;
  /** POST /auth/webhook-signing-secret/rotate: the old secret keeps signing beside the new one for 24 h. */
  rotateSigningSecret(): Promise<SigningSecret>;
  /** GET /auth/webhook-deliveries: the newest 50 deliveries (of one status), each with its attempts. */
  listDeliveries(filter: StatusFilter, signal?: AbortSignal): Promise<Delivery[]>;
  /** POST /auth/webhook-deliveries/{id}/resend. */
  resendDelivery(id: string): Promise<void>;
  /** POST /auth/webhook-test: a webhook.test event to the account webhook URL (429 beyond the limit). */
  sendTestEvent(): Promise<void>;
  /** GET /auth/webhook-endpoints/paused: the URLs the circuit breaker paused (optional in fakes). */
  listPausedEndpoints?(signal?: AbortSignal): Promise<PausedEndpoint[]>;
  /** POST /auth/webhook-endpoint/resume: closes the breaker; the URL's waiting deliveries go now. */
  resumeEndpoint?(url: string): Promise<void>;
  /** GET /auth/webhook-events: the account webhook's event filter, null for every event (optional in fakes). */
  getWebhookEvents?(): Promise<WebhookEventName[] | null>;
  /** POST /auth/webhook-events: sets it (null: every event); answers the stored filter. */
  updateWebhookEvents?(events: WebhookEventName[] | null): Promise<WebhookEventName[] | null>;
  /** GET /auth/api-keys: the named keys, newest first (never the keys themselves). */
  listNamedKeys(signal?: AbortSignal): Promise<NamedKey[]>;
  /** POST /auth/api-keys: answers the new key with the key itself, the only time it is shown. */
  createNamedKey(input: NewNamedKey): Promise<CreatedNamedKey>;
  /** POST /auth/api-keys/{id}/revoke: the key is refused from the next request on. */
  revokeNamedKey(id: string): Promise<NamedKey>;
};

function createApiKeysGateway(api: TypedApi, afterChange: () => Promise<void>): ApiKeysGateway {
  // The page reports failures itself (toast with its own title, alert), not the client's toast.
  const quiet = { toastOnError: false };
  return {
    async rotateKey() {
      const { api_key } = await api.post('/auth/revokeAndCreateNewAPIKey', quiet);
      void afterChange();
      return api_key;
    },
    async updateWebhookUrl(input) {
      const answer = await api.post('/auth/updateWebhookURL', { ...quiet, body: webhookRequestBody(input) });
      void afterChange();
      return answer.integration_webhook_url;
    },
    copyText: (text) => navigator.clipboard.writeText(text),
    getSigningSecret: () => api.get('/auth/webhook-signing-secret', quiet),
    rotateSigningSecret: () => api.post('/auth/webhook-signing-secret/rotate', quiet),
    async listDeliveries(filter, signal) {
      return (await api.get('/auth/webhook-deliveries', { ...quiet, signal, params: { query: deliveriesQuery(filter) } })).deliveries;
    },
    async resendDelivery(id) {
      await api.post('/auth/webhook-deliveries/{id}/resend', { ...quiet, params: { path: { id } } });
    },
    async sendTestEvent() {
      await api.post('/auth/webhook-test', quiet);
    },
    async listPausedEndpoints(signal) {
      return (await api.get('/auth/webhook-endpoints/paused', { ...quiet, signal })).paused_endpoints;
    },
    async resumeEndpoint(url) {
      await api.post('/auth/webhook-endpoint/resume', { ...quiet, body: { url } });
    },
    async getWebhookEvents() {
      return (await api.get('/auth/webhook-events', quiet)).webhook_events;
    },
    async updateWebhookEvents(events) {
      return (await api.post('/auth/webhook-events', { ...quiet, body: { events } })).webhook_events;
    },
    async listNamedKeys(signal) {
      return (await api.get('/auth/api-keys', { ...quiet, signal })).keys;
    },
    createNamedKey: (input) => api.post('/auth/api-keys', { ...quiet, body: input }),
    revokeNamedKey: (id) => api.post('/auth/api-keys/{id}/revoke', { ...quiet, params: { path: { id } } }),
  };
}

/**
 * The gateway for the signed-in user. After a change the user row is re-read at once: the API
 * client authenticates with the row's key, which a rotation has just revoked.
 */
export function useApiKeysGateway(): ApiKeysGateway {
  const api = useApi();
  return useMemo(() => createApiKeysGateway(api, refreshUserRow), [api]);
}
