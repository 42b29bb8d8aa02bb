// Helpers for journeys that run generation tasks: reading task rows as the server sees them,
// and recording what the Midjourney screen showed while a task ran.
import { expect, type Page } from '@playwright/test';
import { API_URL } from './platform.ts';
import { serviceClient } from './users.ts';

export type TaskRow = {
  id: string;
  type: string;
  status: string;
  percentage: number;
  parent_id: string | null;
  favorite: boolean;
  image_url: string | null;
  image_urls: string[] | null;
  cost: number;
  refund: number;
  result: { message?: string } | null;
};

/** A task row read with the service role (the journeys check what the server stored). */
export async function readTaskRow(id: string): Promise<TaskRow> {
  const { data, error } = await serviceClient().from('tasks').select('*').eq('id', id).single();
  if (error) throw new Error(`GET /rest/v1/tasks?id=eq.${id}: ${error.message}`);
  return data as TaskRow;
}

/** The user's credits as the server holds them. */
export async function readCredits(userId: string): Promise<number> {
  const { data, error } = await serviceClient().from('mdusers').select('credits').eq('id', userId).single();
  if (error) throw new Error(`GET /rest/v1/mdusers?id=eq.${userId}: ${error.message}`);
  return (data as { credits: number }).credits;
}

/** The taskId the Midjourney screen's URL names now. */
export function taskIdOf(page: Page): string | null {
  return new URL(page.url()).searchParams.get('taskId');
}

/** Waits until the URL names a task other than `previous`, and answers its id. */
export async function nextTaskId(page: Page, previous: string | null): Promise<string> {
  await expect.poll(() => taskIdOf(page), { message: 'the URL follows the new task' }).not.toBe(previous);
  const id = taskIdOf(page);
  expect(id, 'taskId in the URL').toBeTruthy();
  return id!;
}

export type ShownState = { taskId: string; status: string; percentage: string | null };

/**
 * Records, from inside the page, every task state the Midjourney screen renders (status and
 * the progress text), however briefly: the local engine can finish a grid in well under a
 * second, faster than a poll from the test would notice.
 */
export async function recordShownStates(page: Page): Promise<() => Promise<ShownState[]>> {
  await page.addInitScript(() => {
    const seen: { taskId: string; status: string; percentage: string | null }[] = [];
    (window as unknown as { __mjStates: typeof seen }).__mjStates = seen;
    const capture = () => {
      const view = document.querySelector<HTMLElement>('[data-testid="task-view"]');
      if (!view) return;
      const entry = {
        taskId: view.dataset.taskId ?? '',
        status: view.dataset.taskStatus ?? '',
        percentage: document.querySelector('[data-testid="task-percentage"]')?.textContent ?? null,
      };
      const last = seen[seen.length - 1];
      if (!last || last.taskId !== entry.taskId || last.status !== entry.status || last.percentage !== entry.percentage) seen.push(entry);
    };
    new MutationObserver(capture).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { __mjStates: ShownState[] }).__mjStates ?? []);
}

/**
 * Counts the realtime UPDATE events for each task the page receives over its websocket, so a
 * journey can tell a live update from a re-read.
 */
export function countRealtimeTaskUpdates(page: Page): (taskId: string) => number {
  const counts = new Map<string, number>();
  page.on('websocket', (ws) =>
    ws.on('framereceived', ({ payload }) => {
      const text = typeof payload === 'string' ? payload : payload.toString();
      if (!text.includes('postgres_changes') || !text.includes('"UPDATE"')) return;
      const id = /"record":\{[\s\S]*?"id":"([0-9a-f-]{36})"/.exec(text)?.[1];
      if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
    }),
  );
  return (taskId) => counts.get(taskId) ?? 0;
}

/** True once POST /pro/imagine is served (it answers 401 without a key, 404 if absent). */
export async function imagineEndpointIsServed(): Promise<boolean> {
  const res = await fetch(`${API_URL}/pro/imagine`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  return res.status !== 404;
}

/** A provider API call with the user's API key; fails the journey on a non-2xx answer. */
async function callApi<T>(apiKey: string, pathname: string, body: unknown): Promise<T> {
  const res = await fetch(`${API_URL}${pathname}`, {
    method: 'POST',
    headers: { authorization: apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${pathname} → HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** Submits a task through the API and answers its id. */
export async function submitTask(apiKey: string, pathname: string, body: unknown): Promise<string> {
  return (await callApi<{ task_id: string }>(apiKey, pathname, body)).task_id;
}

/** A task as POST /fetch answers it (the APIFRAME v1 view; the fields these journeys read). */
type FetchedTask = { status: string; percentage: string; message?: string; result: { message?: string } | null };

/** Polls POST /fetch, as a v1 client does, until the task is finished or failed; answers its last view. */
export async function waitForTerminal(apiKey: string, taskId: string, timeoutMs = 60_000): Promise<FetchedTask> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await callApi<FetchedTask>(apiKey, '/fetch', { task_id: taskId });
    if (view.status === 'finished' || view.status === 'failed') return view;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${view.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
