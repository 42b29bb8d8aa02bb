/**
 * @module Outgoing webhooks: the public surface for the task engine (enqueue events), the
 * launcher (start/stop the dispatcher) and receivers (verify a signature).
 */
export { createWebhookService, DEFAULT_TIMEOUT_MS, DEFAULT_USER_AGENT } from './webhook-service.ts';
export type { WebhookService, WebhookServiceOptions, EnqueueInput, DeliveryWithAttempts } from './webhook-service.ts';
export type { WebhookEvent, DeliveryStatus } from './delivery-repository.ts';
export { verifyWebhookSignature, signWebhook, generateSigningSecret, DEFAULT_TOLERANCE_SEC } from './signature.ts';
export type { VerifyResult, WebhookHeaders } from './signature.ts';
export { resolveWebhookTarget, type WebhookTarget } from './webhook-target.ts';
export { blockedAddressReason } from './target-guard.ts';
export type { ResolveHost } from './target-guard.ts';
export { MAX_ATTEMPTS, RETRY_DELAYS_MS } from './retry-schedule.ts';
