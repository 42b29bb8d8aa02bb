/**
 * @module Writes one event to deliver (the outbox row a dispatcher sends), inside the
 * caller's transaction: the webhook service's `enqueue` and the task settlement both go
 * through here, so a task's completion is recorded in the very transaction that settles it.
 */
import type { Queryable } from '@aim/supabase/db';
import { deliveryRepository, type WebhookEvent } from './delivery-repository.ts';

export interface DeliveryInput {
  userId: string;
  taskId: string;
  url: string;
  /** The per-request webhook_secret: echoed as x-webhook-secret and the signing key. */
  secret?: string | null;
  event: WebhookEvent;
  /** The body: the task's /fetch result. */
  payload: unknown;
}

/**
 * Records an event for one task and url; answers its id, or null when dropped: a progress
 * event after the task's final event, or a second final event (one per task and url, unique
 * key). A newer event supersedes the waiting progress events of the same task and url.
 * Run it in a transaction: the advisory lock serialises the target's events until commit.
 */
export async function recordDelivery(q: Queryable, input: DeliveryInput, now: Date): Promise<string | null> {
  const repo = deliveryRepository(q);
  await repo.lockTarget(input.taskId, input.url);
  if (await repo.hasFinalEvent(input.taskId, input.url)) return null;
  await repo.supersedeProgress(input.taskId, input.url, now);
  const id = await repo.insert({ ...input, now });
  if (id && input.secret) await repo.insertSecret(id, input.secret);
  return id;
}
