// Follow an AIM task's live events (server-sent events) with Node.js 18+ and nothing else.
//
//   AIM_API_KEY=… node events.mjs <task_id>     one task, until it completes or fails
//   AIM_API_KEY=… node events.mjs               every task of the account (GET /events), until stopped
//
// AIM_API_URL: the API's origin (default http://localhost:8080). Prints one line per event:
// "<event> <id> <task_id> <status> <percentage>". The key goes in the Authorization header, which
// the browser's EventSource cannot send, so the stream is read with fetch. When the connection
// drops (or the server restarts) it reconnects with Last-Event-ID and gets what it missed.
const base = process.env.AIM_API_URL ?? 'http://localhost:8080';
const key = process.env.AIM_API_KEY;
if (!key) {
  console.error('set AIM_API_KEY');
  process.exit(2);
}
const taskId = process.argv[2];
const url = taskId ? `${base}/tasks/${encodeURIComponent(taskId)}/events` : `${base}/events`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The events of an SSE body: { event, id, data, retry }; comment lines (heartbeats) are skipped. */
async function* readEvents(body) {
  let buffer = '';
  let event = { event: 'message', data: [] };
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop(); // an incomplete line waits for the next chunk
    for (const line of lines) {
      if (line === '') {
        if (event.data.length > 0 || event.retry) yield { ...event, data: event.data.join('\n') };
        event = { event: 'message', data: [] };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event.event = value;
      else if (field === 'data') event.data.push(value);
      else if (field === 'id') event.id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
    }
  }
}

let lastEventId;
let retryMs = 3000;
for (;;) {
  let res;
  try {
    res = await fetch(url, {
      headers: { authorization: key, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    });
  } catch (error) {
    console.error(`connection failed (${error.message}); retrying`);
    await sleep(retryMs);
    continue;
  }
  if (res.status === 204) break; // the task had ended and its last event was received: nothing more
  if (!res.ok) {
    console.error(`HTTP ${res.status}: ${await res.text()}`);
    if (res.status === 429 || res.status >= 500) {
      await sleep(Number(res.headers.get('retry-after') ?? 0) * 1000 || retryMs);
      continue;
    }
    process.exit(1);
  }
  let ended = false;
  try {
    for await (const ev of readEvents(res.body)) {
      if (ev.retry) retryMs = ev.retry;
      if (!ev.data) continue;
      if (ev.id) lastEventId = ev.id;
      const task = JSON.parse(ev.data);
      console.log(`${ev.event} ${ev.id} ${task.task_id} ${task.status} ${task.percentage}`);
      if (taskId && (ev.event === 'completed' || ev.event === 'failed')) ended = true;
    }
  } catch (error) {
    console.error(`stream dropped (${error.message})`);
  }
  if (ended) break;
  console.error(`reconnecting after event ${lastEventId ?? '(none)'}`);
  await sleep(retryMs);
}
