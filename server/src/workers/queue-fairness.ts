/**
 * @module How the task workers share a queue between accounts (server/README.md, "Fair queue").
 *
 * Environment: QUEUE_FAIRNESS (`account`, the default: accounts take turns, so one account's
 * burst does not hold every other account's tasks behind it; `fifo`: oldest job first, whoever
 * owns it), QUEUE_MAX_RUNNING_PER_ACCOUNT (account mode: at most this many jobs of one account
 * run at once per engine across all workers, even when others could; unset: no cap).
 */
import type { ClaimFairness } from '../repositories/job-repository.ts';

export type QueueFairness = ClaimFairness;

export function queueFairnessFromEnv(env: NodeJS.ProcessEnv = process.env): QueueFairness {
  const mode = env.QUEUE_FAIRNESS || 'account';
  if (mode !== 'account' && mode !== 'fifo') throw new Error(`QUEUE_FAIRNESS must be account or fifo, got ${JSON.stringify(mode)}`);
  const cap = env.QUEUE_MAX_RUNNING_PER_ACCOUNT;
  if (cap && !/^[1-9]\d*$/.test(cap)) throw new Error(`QUEUE_MAX_RUNNING_PER_ACCOUNT must be a positive integer, got ${JSON.stringify(cap)}`);
  return { mode, maxRunningPerAccount: cap ? Number(cap) : null };
}
