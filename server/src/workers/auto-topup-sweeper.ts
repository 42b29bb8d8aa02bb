/**
 * @module The periodic auto top-up sweep (services/billing/auto-topup/): every API instance
 * runs one each minute (main.ts); several at once share the work safely (one open attempt
 * per user, settling is idempotent, alerts are claimed before they are sent).
 */
import { finishAbandonedAttempts } from '../services/billing/auto-topup/charge-attempt.ts';
import { topUpDueAccounts } from '../services/billing/auto-topup/trigger.ts';
import type { Billing } from '../services/billing/billing.ts';
import { sendDueLowBalanceAlerts } from '../services/billing/low-balance-alert.ts';
import { type Periodic, periodic } from './periodic.ts';

/**
 * Abandoned attempts first (charge-attempt.ts), then due accounts (trigger.ts), then due
 * low-balance alerts (low-balance-alert.ts).
 */
export function createAutoTopUpSweeper(billing: Billing, intervalMs = 60_000): Periodic {
  return periodic(
    async () => {
      await finishAbandonedAttempts(billing);
      await topUpDueAccounts(billing);
      await sendDueLowBalanceAlerts(billing);
    },
    {
      intervalMs,
      onError: (error) => billing.log.error('auto top-up sweep failed', { error: error instanceof Error ? error.message : String(error) }),
    },
  );
}
