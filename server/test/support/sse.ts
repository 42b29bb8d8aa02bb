/**
 * A server-sent events reader for tests: parses a text/event-stream response into events and
 * comments, one at a time, with a timeout.
 */
interface SseEvent {
  event: string;
  id: string | undefined;
  data: string;
}

export interface SseReader {
  /** The next event (comments are collected aside); undefined when the stream ended. */
  next(timeoutMs?: number): Promise<SseEvent | undefined>;
  /** Comment lines seen so far (heartbeats), without the leading colon. */
  comments: string[];
  /** The client goes away. */
  cancel(): Promise<void>;
}

export function readSse(res: Response): SseReader {
  if (!res.body) throw new Error('no body');
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const comments: string[] = [];
  let buffer = '';
  let ended = false;
  // a read still pending after a timeout is kept for the next call (its chunk is not lost)
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;

  function parse(block: string): SseEvent | undefined {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    return data.length > 0 ? { event, id, data: data.join('\n') } : undefined;
  }

  return {
    comments,
    async next(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const cut = buffer.indexOf('\n\n');
        if (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = parse(block);
          if (event) return event;
          continue;
        }
        if (ended) return undefined;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${timeoutMs} ms; buffered: ${JSON.stringify(buffer)}`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        pending ??= reader.read();
        const chunk = await Promise.race([
          pending,
          new Promise<'timeout'>((resolve) => {
            timer = setTimeout(() => resolve('timeout'), left);
          }),
        ]).finally(() => clearTimeout(timer));
        if (chunk === 'timeout') throw new Error(`no event within ${timeoutMs} ms; buffered: ${JSON.stringify(buffer)}`);
        pending = undefined;
        if (chunk.done) ended = true;
        else buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    async cancel() {
      await reader.cancel().catch(() => {});
    },
  };
}
