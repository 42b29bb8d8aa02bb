/**
 * @module POST /estimate/<create path> (issue 23, part 5): what a create call would hold,
 * without creating anything. The create call's own route runs in a dry run: the same body
 * validation, parent and input checks and the same price (createTask's `priceAndQueue`, through
 * priceOf), and stops where the hold would be taken (`stopForEstimate`, called by createTask and
 * assertCanCreateTask before anything is stored). So an estimate can never disagree with the
 * hold, and a body the call would refuse gets the very same refusal.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Account } from '../../repositories/user-repository.ts';

interface EstimateRun {
  account: Account;
  reached?: { type: string; credits: number };
}

const runs = new AsyncLocalStorage<EstimateRun>();

/** Thrown where the hold would be taken in a dry run; the error handler answers it with an empty 204. */
export class EstimateReached extends Error {
  constructor() {
    super('estimate reached');
    this.name = 'EstimateReached';
  }
}

/** The account a dry run is for (authenticated by the estimate call, with its read scope), else undefined. */
export function estimatingAccount(): Account | undefined {
  return runs.getStore()?.account;
}

export function isEstimating(): boolean {
  return runs.getStore() !== undefined;
}

/** In a dry run: records the price and stops the call before the hold; otherwise does nothing. */
export function stopForEstimate(type: string, credits: number): void {
  const run = runs.getStore();
  if (!run) return;
  run.reached = { type, credits };
  throw new EstimateReached();
}

/**
 * Runs `dispatch` (the create call) as a dry run for `account`; answers the price it reached, or
 * undefined with the call's own answer when it stopped earlier (a refusal).
 */
export async function runEstimate(
  account: Account,
  dispatch: () => Promise<Response>,
): Promise<{ reached: { type: string; credits: number }; response?: undefined } | { reached?: undefined; response: Response }> {
  const run: EstimateRun = { account };
  const response = await runs.run(run, dispatch);
  if (run.reached) {
    await response.body?.cancel();
    return { reached: run.reached };
  }
  return { response };
}
