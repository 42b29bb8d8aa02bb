import { useMemo, useRef } from 'react';

/**
 * The Idempotency-Key of the calls that start a charge: one `crypto.randomUUID()` per user
 * action, the same again while that action (same call, same inputs) is retried after a failure,
 * a new one once it succeeded or the user asks for something else. A double submit or a retry
 * after a lost answer then gets the first answer back instead of a second charge.
 */
export function useActionKey() {
  const last = useRef<{ action: string; key: string } | null>(null);
  return useMemo(
    () => ({
      /** The key of `action` (e.g. `topup:25`). */
      keyFor(action: string): { idempotencyKey: string } {
        if (last.current?.action !== action) last.current = { action, key: crypto.randomUUID() };
        return { idempotencyKey: last.current.key };
      },
      /** The action went through: the next one is a new action even with the same inputs. */
      done() {
        last.current = null;
      },
    }),
    [],
  );
}
