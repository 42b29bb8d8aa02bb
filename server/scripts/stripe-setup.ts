// Prepares a Stripe account for this server: a monthly Price per plan under its lookup key and,
// with --webhook-url, the webhook endpoint. Run it once per account (test, then live); it is
// safe to run again. Usage:
//   STRIPE_SECRET_KEY=sk_test_… pnpm --filter @aim/server stripe:setup [--webhook-url https://api.example.com/webhooks/stripe] [--live]
// STRIPE_API_BASE points it elsewhere (tests: the local fake Stripe).
import { parseArgs } from 'node:util';
import { createStripeClient, isLiveKey } from '../src/billing/stripe/client.ts';
import { setUpStripe } from '../src/billing/stripe/setup.ts';

const { values } = parseArgs({ options: { 'webhook-url': { type: 'string' }, live: { type: 'boolean', default: false } } });
const secretKey = process.env.STRIPE_SECRET_KEY;
if (!secretKey) {
  console.error('stripe:setup needs STRIPE_SECRET_KEY (a test key sk_test_… first).');
  process.exit(2);
}
if (isLiveKey(secretKey) && !values.live) {
  console.error('STRIPE_SECRET_KEY is a live key: add --live to change the live account.');
  process.exit(2);
}
const webhookUrl = values['webhook-url'];
if (webhookUrl && !/^https:\/\//.test(webhookUrl) && !process.env.STRIPE_API_BASE) {
  console.error('--webhook-url must be an https URL that Stripe can reach, e.g. https://api.example.com/webhooks/stripe');
  process.exit(2);
}

const stripe = createStripeClient({ secretKey, publishableKey: '', webhookSecret: '', apiBase: process.env.STRIPE_API_BASE });
const report = await setUpStripe(stripe, { webhookUrl });
console.log(`Stripe ${report.livemode ? 'LIVE' : 'test'} account`);
for (const p of report.prices) console.log(`  ${p.action.padEnd(8)} ${p.lookupKey.padEnd(26)} ${p.priceId}  $${(p.amountCents / 100).toFixed(2)}/month`);
if (report.webhook) {
  console.log(`  webhook  ${report.webhook.action} ${report.webhook.id} → ${report.webhook.url}`);
  if (report.webhook.secret) console.log(`\nSet STRIPE_WEBHOOK_SECRET=${report.webhook.secret} on the API server (Stripe shows it only now).`);
  else console.log('\nThe endpoint existed: STRIPE_WEBHOOK_SECRET stays the secret it was created with (Dashboard → Webhooks).');
}
