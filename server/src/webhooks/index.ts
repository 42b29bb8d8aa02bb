/**
 * @module Outgoing webhooks: the public surface for the task engine (enqueue events), the
 * launcher (start/stop the dispatcher) and receivers (verify a signature).
 */
export { createWebhookService } from './webhook-service.ts';
export type { WebhookService, WebhookServiceOptions } from './webhook-service.ts';
export { verifyWebhookSignature, signWebhook, generateSigningSecret } from './signature.ts';
export { resolveWebhookTarget } from './webhook-target.ts';
export { blockedAddressReason } from './target-guard.ts';
export { MAX_ATTEMPTS } from './retry-schedule.ts';
