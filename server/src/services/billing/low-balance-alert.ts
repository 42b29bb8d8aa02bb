/**
 * @module The low-balance email alert: when a charge takes the balance below the threshold
 * the user picked (mdusers.low_balance_alert_at), one email, and no other until the balance
 * has been at or above the threshold again. The database keeps the state: a trigger on
 * every balance change marks the alert due on the crossing and re-arms it on the recovery
 * (20261128000400_spending_controls.sql); sending claims it first, so the check after a
 * charge and the sweep, in any number of processes, send it once. A mail that fails is due
 * again for the next sweep.
 */
import { logMailer } from '../../mail/mailer.ts';
import { spendingRepository } from '../../repositories/billing/spending.ts';
import type { Billing } from './billing.ts';

const fmt = (n: number) => n.toLocaleString('en-US');

function lowBalanceEmail(to: string, credits: number, threshold: number) {
  return {
    to,
    subject: `Your credit balance is below ${fmt(threshold)}`,
    text: [
      `Your balance is now ${fmt(credits)} credits, below the ${fmt(threshold)} credits you asked to be told about.`,
      'Buy credits or turn on auto top-up in the dashboard (Buy credits) so your tasks keep running.',
      'You will not get this email again until your balance has been back above the threshold.',
    ].join('\n\n'),
  };
}

/** Sends the user's alert when one is due; answers whether this call sent it. */
export async function sendLowBalanceAlert(billing: Billing, userId: string): Promise<boolean> {
  const repo = spendingRepository(billing.db);
  const due = await repo.claimLowBalanceAlert(userId, billing.now());
  if (!due) return false;
  try {
    await (billing.mailer ?? logMailer(billing.log)).send(lowBalanceEmail(due.email, due.credits, due.threshold));
    billing.log.info('low-balance alert sent', { user_id: userId, threshold: due.threshold });
    return true;
  } catch (e) {
    await repo.releaseLowBalanceAlert(userId);
    billing.log.error('low-balance alert could not be sent', { user_id: userId, error: (e as Error).message });
    return false;
  }
}

/** The sweep's part: every due alert (a charge whose own check was not run, or a failed mail). */
export async function sendDueLowBalanceAlerts(billing: Billing, limit = 100): Promise<number> {
  let sent = 0;
  for (const userId of await spendingRepository(billing.db).dueLowBalanceAlertUsers(limit)) {
    try {
      if (await sendLowBalanceAlert(billing, userId)) sent++;
    } catch (e) {
      billing.log.error('low-balance alert check failed', { user_id: userId, error: (e as Error).message });
    }
  }
  return sent;
}
