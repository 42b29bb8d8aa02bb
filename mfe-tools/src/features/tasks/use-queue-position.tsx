// Following a queued task's place in line while it waits: polls the reader the nearest
// QueuePositionProvider gives (the app's reads POST /fetch with the user's key). Without a
// provider nothing is read and the progress shows the status alone.
import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { useApi } from '@aim/shared-kit/api';
import { isQueuedStatus, type QueuePositionReader, readQueuePosition } from './queue-position.ts';

const QueuePositionContext = createContext<QueuePositionReader | null>(null);

/** How often a waiting task's position is read again. */
const POLL_MS = 5_000;

export function QueuePositionProvider({ read, children }: { read: QueuePositionReader; children: ReactNode }) {
  return <QueuePositionContext.Provider value={read}>{children}</QueuePositionContext.Provider>;
}

/** The provider of the remote's screens: positions read with the signed-in user's API client. */
export function ApiQueuePositionProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const read = useCallback<QueuePositionReader>((taskId, signal) => readQueuePosition(api, taskId, signal), [api]);
  return <QueuePositionProvider read={read}>{children}</QueuePositionProvider>;
}

/** The jobs ahead of a queued task, read every few seconds while it waits; null otherwise or until known. */
export function useQueuePosition(taskId: string | undefined, status: string, pollMs = POLL_MS): number | null {
  const read = useContext(QueuePositionContext);
  const queued = isQueuedStatus(status);
  const [ahead, setAhead] = useState<number | null>(null);
  useEffect(() => {
    setAhead(null);
    if (!read || !taskId || !queued) return;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const position = await read(taskId, abort.signal);
        if (!abort.signal.aborted) setAhead(position?.ahead ?? null);
      } catch {
        // the next read may work; the status stays shown meanwhile
      }
      if (!abort.signal.aborted) timer = setTimeout(poll, pollMs);
    };
    void poll();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [read, taskId, queued, pollMs]);
  return queued ? ahead : null;
}
