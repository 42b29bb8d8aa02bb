import { useEffect, useState } from 'react';
import { preferLocal, recordChange, type LocalChange } from './key-rules.ts';

/**
 * `server` (a user-row field) with this page's own latest change laid over it until the row has
 * caught up; from then on the row alone counts again, so later changes made elsewhere show.
 */
export function useLocalChange<T>(server: T): [value: T, record: (value: T) => void] {
  const [local, setLocal] = useState<LocalChange<T> | null>(null);
  useEffect(() => {
    if (local && server === local.value) setLocal(null);
  }, [server, local]);
  return [preferLocal(server, local), (value) => setLocal((prev) => recordChange(prev, server, value))];
}
