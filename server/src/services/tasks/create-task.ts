/**
 * @module The one way a task is born: in a single statement (public.submit_task, one round
 * trip) the credit hold is taken (ledger source key `hold:<task id>`), the task row inserted,
 * its webhook stored and its job enqueued. Not enough credits rolls everything back: no task,
 * no hold. Outside embedded mode a kind whose engine only simulates it is refused (400
 * engine_unavailable) unless the operator allows simulated engines, so nobody pays for a
 * stand-in picture by mistake. Billing's auto top-up is called after the commit only when the
 * same statement found it due.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '@aim/supabase/db';
import type { ApiConfig } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import { currentRequestId } from '../../logger.ts';
import { recordCredits } from '../../observability/metrics.ts';
import { JOB_CHANNEL } from '../../repositories/job-repository.ts';
import { apiKeyCreditLimitOf, isApiKeyInvalid } from '../../repositories/api-key-repository.ts';
import { isInsufficientCredits, taskRepository } from '../../repositories/task-repository.ts';
import { isAccountOnHold, taskHoldError } from '../billing/account-hold.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { priceOf } from '../pricing/catalog.ts';
import { isEstimating, stopForEstimate } from '../pricing/estimate.ts';
import type { EngineRegistry } from './engine-registry.ts';
import { engineKindOf } from './task-kinds.ts';

const DEFAULT_MAX_ATTEMPTS = 3;

export interface TaskDeps {
  db: Db;
  engines: EngineRegistry;
  /** Embedded mode and ALLOW_SIMULATED_ENGINES decide whether simulated engines may be sold. */
  config: Pick<ApiConfig, 'embedded' | 'allowSimulatedEngines'>;
  /** Engine attempts per task before it fails and is refunded. Default 3. */
  maxAttempts?: number;
  /**
   * Called after a committed hold that billing's auto top-up has to look at (the balance went
   * below the user's threshold, or an attempt is still open; decided in the same statement);
   * must not throw, and runs after the answer is decided, off the request's database work.
   */
  afterCharge?: (userId: string) => void;
}

export interface TaskSpec {
  /** The task's id, when the caller needed it first (e.g. to name media stored for it); else a new one. */
  id?: string;
  type: string;
  /** How many units a type priced per unit is for (photos trained on, photos asked for); see priceOf. */
  quantity?: number;
  /**
   * The engine (queue) to run on when it is registered and runs this kind, e.g. the engine that
   * trained an AI photo identity; otherwise the registry's choice.
   */
  preferredEngine?: string;
  prompt: string | null;
  parentPrompt?: string | null;
  parentId?: string | null;
  mode?: string | null;
  inputData?: Record<string, unknown> | null;
  expiresAt?: Date | null;
  /** `events`: the request's webhook_events (null: the account's filter). */
  webhook?: { url: string | null; secret: string | null; events?: readonly string[] | null };
}

const INSUFFICIENT_CREDITS_MESSAGE = 'Not enough credits';

/**
 * Who a task is for: the account, and the named key that asked (tasks.api_key_id, whose
 * monthly credit limit the submit enforces); no keyId: the primary key or the dashboard.
 */
export type TaskOwner = Pick<Account, 'id' | 'email'> & { keyId?: string | null };

/** The price and the queue of a task of `spec`, or the 400 that refuses it before anything is held. */
function priceAndQueue(deps: TaskDeps, spec: Pick<TaskSpec, 'type' | 'quantity' | 'preferredEngine'>): { cost: number; queue: string } {
  const cost = priceOf(spec.type, spec.quantity);
  const kind = engineKindOf(spec.type);
  const found = kind && spec.preferredEngine ? deps.engines.get(spec.preferredEngine) : undefined;
  const preferred = kind && found?.supports(kind) ? found : undefined;
  const queue = kind && (preferred?.name ?? deps.engines.route(kind));
  if (cost === undefined || !kind || !queue) throw new ApiError('bad_request', `${spec.type} tasks are not available`);
  const simulated = preferred ? (preferred.simulatedKinds?.includes(kind) ?? false) : deps.engines.isSimulated(kind);
  if (simulated && !deps.config.embedded && !deps.config.allowSimulatedEngines) {
    throw new ApiError('engine_unavailable', `${spec.type} tasks are not available on this server: no generation engine is configured for them`);
  }
  return { cost, queue };
}

/**
 * The refusals createTask would answer (not sold here, not enough credits), checked before
 * work a submit should not do for nothing, such as storing a user's photos. Only a check:
 * the hold in createTask decides.
 */
export async function assertCanCreateTask(deps: TaskDeps, account: TaskOwner, spec: Pick<TaskSpec, 'type' | 'quantity' | 'preferredEngine'>): Promise<void> {
  const { cost } = priceAndQueue(deps, spec);
  // POST /estimate: the price is known, nothing is stored
  stopForEstimate(spec.type, cost);
  if ((await taskRepository(deps.db).creditsOf(account.id)) < cost)
    throw (await taskHoldError(deps.db, account.id)) ?? new ApiError('insufficient_credits', INSUFFICIENT_CREDITS_MESSAGE);
}

/**
 * assertCanCreateTask as an early check, before a body is even read (the price from the
 * headers). In a POST /estimate dry run only its refusals of the type apply (not sold, no
 * engine): the estimate reports the balance itself and goes on to the call's own checks.
 */
export async function assertCanPayEarly(deps: TaskDeps, account: TaskOwner, spec: Pick<TaskSpec, 'type' | 'quantity' | 'preferredEngine'>): Promise<void> {
  if (isEstimating()) priceAndQueue(deps, spec);
  else await assertCanCreateTask(deps, account, spec);
}

export async function createTask(deps: TaskDeps, account: TaskOwner, spec: TaskSpec): Promise<{ task_id: string }> {
  const { cost, queue } = priceAndQueue(deps, spec);
  // POST /estimate: the hold this would take, and no task
  stopForEstimate(spec.type, cost);
  const id = spec.id ?? randomUUID();
  const webhook = spec.webhook && (spec.webhook.url || spec.webhook.secret || spec.webhook.events) ? spec.webhook : null;
  let topUpDue: boolean;
  try {
    // one statement, one round trip: hold (it locks the user's row, so concurrent submits
    // queue up there), task, webhook, job and NOTIFY commit together or not at all
    ({ topUpDue } = await taskRepository(deps.db).submit({
      ...spec,
      id,
      userId: account.id,
      email: account.email,
      cost,
      webhook,
      queue,
      maxAttempts: deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      channel: JOB_CHANNEL,
      // the submitting request's id (its log context), so the worker's and webhooks' lines carry it
      requestId: currentRequestId(),
      apiKeyId: account.keyId ?? null,
    }));
  } catch (error) {
    // an open dispute or a negative balance: the hold's own message (a negative balance fails the hold first)
    if (isInsufficientCredits(error) || isAccountOnHold(error))
      throw (await taskHoldError(deps.db, account.id)) ?? new ApiError('insufficient_credits', INSUFFICIENT_CREDITS_MESSAGE);
    // the key was revoked or expired while the request was on its way
    if (isApiKeyInvalid(error)) throw new ApiError('invalid_api_key', 'Invalid API key');
    const limit = apiKeyCreditLimitOf(error);
    if (limit !== undefined) throw new ApiError('api_key_credit_limit', `This API key's monthly credit limit (${limit}) is reached`);
    throw error;
  }
  recordCredits('spent', spec.type, cost);
  if (topUpDue) deps.afterCharge?.(account.id);
  return { task_id: id };
}
