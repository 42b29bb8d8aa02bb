/**
 * @module POST /webhooks/stripe: Stripe's event deliveries. The body is read raw and verified
 * against the endpoint secret before anything else (400 on a bad, missing or stale
 * signature). Verified billing events go to the one billing event handler, which is
 * idempotent, so Stripe's retries and duplicate deliveries grant nothing twice; a handler
 * failure answers 500 so Stripe delivers again. Not in the OpenAPI document: only Stripe
 * calls it. Mounted only when the provider is Stripe (sandbox events never come this way).
 */
import { isStripeProvider } from '../billing/stripe/stripe-provider.ts';
import { WebhookSignatureError } from '../billing/stripe/webhook.ts';
import { ApiError } from '../errors.ts';
import { createRouter } from '../openapi/router.ts';
import type { Billing } from '../services/billing/billing.ts';
import { handleBillingEvent } from '../services/billing/handle-event.ts';

export const INVALID_SIGNATURE_MESSAGE = 'Invalid Stripe signature';

export function stripeWebhookRoutes(billing: Billing) {
  const router = createRouter();
  const provider = billing.provider;
  if (!isStripeProvider(provider)) return router;

  router.post('/webhooks/stripe', async (c) => {
    const rawBody = new Uint8Array(await c.req.arrayBuffer());
    let outcome: Awaited<ReturnType<typeof provider.parseWebhook>>;
    try {
      outcome = await provider.parseWebhook(rawBody, c.req.header('stripe-signature'));
    } catch (e) {
      if (!(e instanceof WebhookSignatureError)) throw e;
      billing.log.info('stripe webhook refused', { reason: e.message });
      throw new ApiError('bad_request', INVALID_SIGNATURE_MESSAGE);
    }
    if ('ignored' in outcome) {
      billing.log.info('stripe webhook ignored', { event_id: outcome.eventId, type: outcome.type, reason: outcome.ignored });
      return c.json({ received: true }, 200);
    }
    await handleBillingEvent(billing, outcome.event);
    return c.json({ received: true }, 200);
  });
  return router;
}
