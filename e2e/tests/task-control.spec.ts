import http from 'node:http';
import { expect, test, type Page } from '@playwright/test';
import { API_URL } from '../support/platform.ts';
import { expectMidjourney, screenshot } from '../support/journeys.ts';
import { nextTaskId, readCredits, readTaskRow, submitTask, waitForTerminal } from '../support/tasks.ts';
import { applyCredit, createUser, signIn } from '../support/users.ts';

// The task controls peers offer (issue 23), through the screens: a task waiting behind others
// shows its place in line and is cancelled (refunded) from the Midjourney tool and from Task
// Logs; the webhook's event filter set in the console decides which events are sent.

/**
 * A queue in front of the next task: `n` tasks of this account made with the API at once (the
 * local engine runs a couple per engine at a time, so the ones after them wait).
 */
function fillQueue(apiKey: string, n: number, tag: string): Promise<string[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => submitTask(apiKey, '/pro/imagine', { prompt: `${tag} ${i}` })));
}

/** Cancels what is still active of `ids` (POST /cancel answers 409 for a finished task: ignored). */
async function cancelRest(apiKey: string, ids: string[]): Promise<void> {
  await Promise.all(
    ids.map((id) =>
      fetch(`${API_URL}/cancel`, {
        method: 'POST',
        headers: { authorization: apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ task_id: id }),
      }).then((res) => res.body?.cancel()),
    ),
  );
}

const toast = (page: Page, type: 'success' | 'error', text: string) => page.getByTestId(`toast-${type}`).filter({ hasText: text });

test.describe('task controls', () => {
  test('a task waiting in line shows its place, and is cancelled and refunded from the Midjourney tool and from Task Logs', async ({ context, page }) => {
    test.setTimeout(120_000);
    const user = await createUser('canceller', { onboarded: true });
    await applyCredit(user.id, 1_000, 'e2e credits for the cancel journey');
    const key = user.row.api_key;
    const fillers: string[] = [];
    try {
      await signIn(context, user);
      await page.goto('/dashboard/tools/midjourney');
      await expectMidjourney(page);
      await page.getByRole('textbox', { name: 'Prompt' }).fill('a task nobody waits for');

      // tasks in front, then ours: it waits, and says how many are ahead of it
      fillers.push(...(await fillQueue(key, 16, 'ahead in the tool')));
      const credits = await readCredits(user.id);
      await page.getByRole('button', { name: 'Imagine' }).click();
      const taskId = await nextTaskId(page, null);
      await expect(page.getByTestId('task-status')).toHaveText(/^In queue \(\d+ ahead\)$/);
      await screenshot(page, 'midjourney-in-queue');

      // Cancel asks first (the focus on the confirming button; Escape keeps the task)
      await page.getByTestId('task-cancel').click();
      await expect(page.getByTestId('task-cancel-confirm')).toContainText('Stop this task? Its credits are refunded.');
      await expect(page.getByTestId('task-cancel-yes')).toBeFocused();
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('task-cancel')).toBeFocused();
      await page.getByTestId('task-cancel').click();
      await page.getByTestId('task-cancel-yes').click();
      await expect(page.getByTestId('task-failed-message')).toHaveText('Cancelled');
      await expect(page.getByTestId('task-refund')).toHaveText('4 credits were refunded.');
      const row = await readTaskRow(taskId);
      expect(row.status).toBe('failed');
      // the hold came back: the balance is what it was before Imagine
      await expect.poll(() => readCredits(user.id)).toBe(credits);

      // Task Logs: the newest task behind a queue has Cancel; it ends failed, refunded
      fillers.push(...(await fillQueue(key, 16, 'ahead in the logs')));
      const last = await submitTask(key, '/pro/imagine', { prompt: 'the last in line' });
      await page.goto('/dashboard/task-logs');
      await expect(page.getByRole('heading', { name: 'Task Logs' })).toBeVisible();
      const lastRow = page.locator(`[data-testid="task-log-row"][data-task-id="${last}"]`);
      await lastRow.getByRole('button', { name: `Cancel ${last}` }).click();
      const dialog = page.getByRole('alertdialog', { name: `Cancel task ${last}?` });
      await expect(dialog).toContainText('its credits are refunded');
      await dialog.getByRole('button', { name: 'Yes, cancel' }).click();
      await expect(dialog).toBeHidden();
      await expect(lastRow).toContainText('failed');
      await expect(lastRow.getByRole('button', { name: `Cancel ${last}` })).toHaveCount(0);
      const cancelled = await waitForTerminal(key, last);
      expect(cancelled).toMatchObject({ status: 'failed', result: { message: 'Cancelled' } });
      // a finished task cannot be cancelled: the API answers 409, its row offers no Cancel
      expect((await waitForTerminal(key, fillers[0])).status).toBe('finished');
      const refused = await fetch(`${API_URL}/cancel`, {
        method: 'POST',
        headers: { authorization: key, 'content-type': 'application/json' },
        body: JSON.stringify({ task_id: fillers[0] }),
      });
      expect(refused.status).toBe(409);
      await page.getByTestId('task-id-filter').fill(fillers[0]);
      await page.getByTestId('task-id-filter').press('Enter');
      await expect(page.getByTestId('task-log-row')).toHaveCount(1);
      await expect(page.getByTestId('task-log-row')).toContainText('finished');
      await expect(page.getByRole('button', { name: `Cancel ${fillers[0]}` })).toHaveCount(0);
    } finally {
      await cancelRest(key, fillers);
    }
  });

  test('the webhook sends only the events ticked in the console', async ({ context, page }) => {
    test.setTimeout(90_000);
    const events: string[] = [];
    const receiver = http.createServer((req, res) => {
      events.push(String(req.headers['x-webhook-event']));
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/events`;
    try {
      const user = await createUser('eventfilter', { onboarded: true });
      await applyCredit(user.id, 100, 'e2e credits for the webhook events journey');
      await signIn(context, user);
      await page.goto('/dashboard/api-keys');
      await page.getByTestId('webhook-input').fill(hookUrl);
      await page.getByTestId('webhook-input').press('Enter');
      await expect(toast(page, 'success', 'Webhook URL updated')).toBeVisible();

      // every event by default; untick Progress and save
      const field = page.getByTestId('webhook-events');
      await expect(field.getByTestId('webhook-events-current')).toHaveText('Now: all events (progress, completed, failed)');
      await expect(field.getByTestId('webhook-events-save')).toBeDisabled();
      await field.getByRole('checkbox', { name: 'Progress' }).uncheck();
      await field.getByTestId('webhook-events-save').click();
      await expect(field.getByTestId('webhook-events-current')).toHaveText('Now: completed, failed');
      await page.reload();
      await expect(field.getByTestId('webhook-events-current')).toHaveText('Now: completed, failed');
      await expect(field.getByRole('checkbox', { name: 'Progress' })).not.toBeChecked();
      await expect(field.getByRole('checkbox', { name: 'Completed' })).toBeChecked();
      await screenshot(page, 'webhook-events-filter');

      // a task made with the API: its completion is sent, none of its progress
      const taskId = await submitTask(user.row.api_key, '/pro/imagine', { prompt: 'a filtered hook' });
      expect((await waitForTerminal(user.row.api_key, taskId)).status).toBe('finished');
      await expect.poll(() => events).toContain('task.completed');
      expect(events.filter((e) => e === 'task.progress')).toEqual([]);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });
});
