/**
 * @module What billing checks after a charge took credits (app.ts `afterCharge`, after the
 * task's transaction committed): the auto top-up first, since a top-up that brings the
 * balance back above the alert threshold makes the low-balance alert moot, then the alert.
 * The sweep (auto-topup.ts `autoTopUpSweeper`) runs both for every due account too, so a
 * check lost with a dying process still happens within a minute. The submit statement asks
 * for this check when auto top-up is due or the charge crossed the alert threshold.
 */
import { maybeAutoTopUp } from './auto-topup.ts';
import type { Billing } from './billing.ts';
import { sendLowBalanceAlert } from './low-balance-alert.ts';

export async function checkAfterCharge(billing: Billing, userId: string): Promise<void> {
  try {
    await maybeAutoTopUp(billing, userId);
  } finally {
    await sendLowBalanceAlert(billing, userId);
  }
}
