/**
 * @module The sandbox's event log: each state change emits a provider event, stored like
 * Stripe's event log (billing_sandbox.events) and delivered after commit to the billing event
 * handler, the only place credits are granted; delivered again when an object is confirmed again.
 */
import type { Db, Queryable } from '@aim/supabase/db';
import type { BillingEvent, BillingEventSink } from '../payment-provider.ts';
import { newId, S } from './store.ts';

/** An event before it is recorded: the log gives it its id and time. */
type NewEvent = BillingEvent extends infer E ? (E extends BillingEvent ? Omit<E, 'id' | 'created'> : never) : never;

/** Records an event in the running transaction, for delivery after commit. */
export type RecordEvent = (e: NewEvent, at: Date) => Promise<void>;

interface EventLog {
  /** Runs fn in a transaction that may record events, and delivers them after commit. */
  withEvents<T>(fn: (tx: Queryable, record: RecordEvent) => Promise<T>): Promise<T>;
  /** Delivers the events of an object again, as a provider retries a webhook. */
  redeliver(objectId: string): Promise<void>;
  /** Every event emitted for the customer, oldest first. */
  events(customerId: string): Promise<BillingEvent[]>;
}

/** What each part of the sandbox works with: its database, its clock and its event log. */
export interface SandboxContext extends EventLog {
  db: Db;
  now: () => Date;
}

/** An event as stored: dates become ISO strings in JSON and come back as Dates. */
function reviveEvent(payload: Record<string, unknown>): BillingEvent {
  const event = { ...payload, created: new Date(payload.created as string) } as Record<string, unknown>;
  if (typeof payload.periodEnd === 'string') event.periodEnd = new Date(payload.periodEnd);
  if (typeof payload.currentPeriodEnd === 'string') event.currentPeriodEnd = new Date(payload.currentPeriodEnd);
  return event as unknown as BillingEvent;
}

function objectIdOf(event: BillingEvent): string {
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
      return event.intentId;
    case 'invoice.paid':
      return event.invoiceId;
    case 'setup_intent.succeeded':
      return event.setupIntentId;
    case 'customer.subscription.deleted':
    case 'customer.subscription.updated':
      return event.subscriptionId;
    case 'invoice.payment_failed':
      return event.invoiceId;
    case 'charge.refunded':
      return event.chargeId;
    case 'charge.dispute.created':
    case 'charge.dispute.closed':
      return event.disputeId;
  }
}

/**
 * @example
 * const { withEvents } = createEventLog(db, (event) => handleBillingEvent(deps, event))
 */
export function createEventLog(db: Db, emit: BillingEventSink): EventLog {
  async function withEvents<T>(fn: (tx: Queryable, record: RecordEvent) => Promise<T>): Promise<T> {
    const recorded: BillingEvent[] = [];
    const result = await db.transaction((tx) =>
      fn(tx, async (e, at) => {
        const event = { ...e, id: newId('evt'), created: at } as BillingEvent;
        await tx.query(`insert into ${S}.events (id, type, customer_id, object_id, payload, created_at) values ($1, $2, $3, $4, $5, $6)`, [
          event.id,
          event.type,
          event.customerId,
          objectIdOf(event),
          JSON.stringify(event),
          at,
        ]);
        recorded.push(event);
      }),
    );
    await deliver(recorded);
    return result;
  }

  async function deliver(events: BillingEvent[]): Promise<void> {
    for (const event of events) {
      await emit(event);
      await db.query(`update ${S}.events set delivered_at = now() where id = $1`, [event.id]);
    }
  }

  async function redeliver(objectId: string): Promise<void> {
    const { rows } = await db.query<{ payload: Record<string, unknown> }>(`select payload from ${S}.events where object_id = $1 order by seq`, [objectId]);
    await deliver(rows.map((r) => reviveEvent(r.payload)));
  }

  return {
    withEvents,
    redeliver,
    async events(customerId) {
      const { rows } = await db.query<{ payload: Record<string, unknown> }>(`select payload from ${S}.events where customer_id = $1 order by seq`, [
        customerId,
      ]);
      return rows.map((r) => reviveEvent(r.payload));
    },
  };
}
