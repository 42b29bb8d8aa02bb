/**
 * @module The one way a task is born: in a single transaction the credit hold is taken
 * (ledger source key `hold:<task id>`), the task row inserted, its webhook stored and its
 * job enqueued. Not enough credits rolls everything back: no task, no hold. Outside embedded
 * mode a kind whose engine only simulates it is refused (400 engine_unavailable) unless the
 * operator allows simulated engines, so nobody pays for a stand-in picture by mistake.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '@aim/supabase/db';
import type { ApiConfig } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import { jobRepository } from '../../repositories/job-repository.ts';
import { isInsufficientCredits, taskRepository } from '../../repositories/task-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { priceOf } from '../pricing/catalog.ts';
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
  /** Called after a hold is committed (billing's auto top-up check); must not throw. */
  afterCharge?: (userId: string) => void;
}

export interface TaskSpec {
  type: string;
  prompt: string | null;
  parentPrompt?: string | null;
  parentId?: string | null;
  mode?: string | null;
  inputData?: Record<string, unknown> | null;
  webhook?: { url: string | null; secret: string | null };
}

const INSUFFICIENT_CREDITS_MESSAGE = 'Not enough credits';

export async function createTask(deps: TaskDeps, account: Account, spec: TaskSpec): Promise<{ task_id: string }> {
  const cost = priceOf(spec.type);
  const kind = engineKindOf(spec.type);
  const queue = kind && deps.engines.route(kind);
  if (cost === undefined || !queue) throw new ApiError('bad_request', `${spec.type} tasks are not available`);
  if (deps.engines.isSimulated(kind) && !deps.config.embedded && !deps.config.allowSimulatedEngines) {
    throw new ApiError('engine_unavailable', `${spec.type} tasks are not available on this server: no generation engine is configured for them`);
  }

  const id = randomUUID();
  try {
    await deps.db.transaction(async (tx) => {
      const tasks = taskRepository(tx);
      // the hold first: it locks the user's row, so concurrent submits queue up here
      await tasks.applyCredit(account.id, -cost, `hold:${id}`, `hold ${spec.type}`, id);
      await tasks.insert({ id, userId: account.id, email: account.email, cost, ...spec });
      if (spec.webhook && (spec.webhook.url || spec.webhook.secret)) {
        await tasks.setWebhook(id, spec.webhook.url, spec.webhook.secret);
      }
      await jobRepository(tx).enqueue(id, queue, deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    });
  } catch (error) {
    if (isInsufficientCredits(error)) throw new ApiError('insufficient_credits', INSUFFICIENT_CREDITS_MESSAGE);
    throw error;
  }
  deps.afterCharge?.(account.id);
  return { task_id: id };
}
