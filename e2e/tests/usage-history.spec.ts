import { readFile } from 'node:fs/promises';
import { expect, type Download, test } from '@playwright/test';
import { screenshot } from '../support/journeys.ts';
import { readCredits, readTaskRow, submitTask, waitForTerminal } from '../support/tasks.ts';
import { applyCredit, createUser, signIn } from '../support/users.ts';

/** A downloaded CSV's records (the exports write no embedded line breaks for these rows). */
async function readCsv(download: Download): Promise<string[][]> {
  const bytes = await readFile((await download.path())!);
  expect([...bytes.subarray(0, 3)], 'a UTF-8 byte order mark first').toEqual([0xef, 0xbb, 0xbf]);
  return bytes
    .subarray(3)
    .toString('utf8')
    .split('\r\n')
    .filter(Boolean)
    .map((line) => line.split(','));
}

test.describe('Where the credits went', () => {
  test('after a few tasks the Subscription screen shows today’s usage and the holds, and both CSV exports read back', async ({ context, page }) => {
    test.setTimeout(120_000);
    const user = await createUser('spender', { onboarded: true });
    await applyCredit(user.id, 1_000, 'e2e credits for the usage journey');
    const key = user.row.api_key;
    const imagineId = await submitTask(key, '/pro/imagine', { prompt: 'a paper boat on a pond' });
    const fluxId = await submitTask(key, '/flux/imagine', { prompt: 'a paper boat in flux' });
    for (const id of [imagineId, fluxId]) expect((await waitForTerminal(key, id)).status).toBe('finished');
    const [imagine, flux] = [await readTaskRow(imagineId), await readTaskRow(fluxId)];
    const spent = imagine.cost + flux.cost;
    const balance = await readCredits(user.id);
    expect(balance).toBe(1_000 - spent);

    await signIn(context, user);
    await page.goto('/dashboard/billing/subscription');
    const activity = page.getByTestId('credit-activity');
    await expect(activity.getByRole('heading', { name: 'Where your credits went' })).toBeVisible();

    // Usage: today's bar names its values; the legend has each family's total; the table says the same
    await expect(activity.getByTestId('usage-total')).toHaveText(`${spent} credits in the last 30 days`);
    await expect(activity.getByTestId('usage-family-midjourney')).toHaveText(`Midjourney ${imagine.cost}`);
    await expect(activity.getByTestId('usage-family-flux')).toHaveText(`Flux ${flux.cost}`);
    const todayBar = activity.getByTestId('usage-bar').last();
    await expect(todayBar).toHaveAttribute('aria-label', new RegExp(`: ${spent} credits \\(Midjourney ${imagine.cost}, Flux ${flux.cost}\\)$`));
    await todayBar.focus();
    await expect(activity.getByTestId('usage-readout')).toContainText(`${spent} credits`);
    await page.keyboard.press('ArrowLeft');
    await expect(activity.getByTestId('usage-readout')).toHaveText(/: 0 credits$/);
    await screenshot(page, 'subscription-usage');
    await activity.getByText('Table', { exact: true }).click();
    await expect(activity.getByTestId('usage-row')).toHaveCount(1);
    await expect(activity.getByTestId('usage-row')).toContainText(String(spent));

    // Credit history: the two holds over the grant, each with the balance it left
    await activity.getByRole('tab', { name: 'Credit history' }).click();
    const rows = activity.getByTestId('history-row');
    await expect(rows).toHaveCount(3);
    await expect(rows.nth(0)).toHaveAttribute('data-kind', 'hold');
    await expect(rows.nth(1)).toHaveAttribute('data-kind', 'hold');
    await expect(rows.nth(2)).toHaveAttribute('data-kind', 'adjustment');
    await expect(rows.nth(0).getByTestId('history-balance')).toHaveText(balance.toLocaleString('en-US'));
    await expect(rows.nth(2).getByTestId('history-balance')).toHaveText('1,000');
    await page.getByTestId('theme-switch').selectOption('light');
    await screenshot(page, 'subscription-credit-history-light');

    // the history as CSV, streamed by the server to the browser's download
    const [historyCsv] = await Promise.all([page.waitForEvent('download'), activity.getByTestId('export-history').click()]);
    expect(historyCsv.suggestedFilename()).toMatch(/^credit-history-\d{4}-\d\d-\d\d\.csv$/);
    const history = await readCsv(historyCsv);
    expect(history[0]).toEqual(['id', 'created_at', 'kind', 'delta', 'balance_after', 'task_id', 'task_type', 'invoice_number']);
    expect(history.slice(1).map((r) => r[2])).toEqual(['hold', 'hold', 'adjustment']);
    expect(history[1][4]).toBe(String(balance));
    expect(new Set(history.slice(1, 3).map((r) => r[5]))).toEqual(new Set([imagineId, fluxId]));

    // a hold links to its task in Task Logs, whose detail shows the task's own movement
    const holdOfFlux = rows.filter({ hasText: 'flux-imagine' });
    await holdOfFlux.getByRole('link', { name: `Task ${fluxId} in Task Logs` }).click();
    await expect(page).toHaveURL(new RegExp(`/dashboard/task-logs\\?id=${fluxId}$`));
    await expect(page.getByTestId('task-log-row')).toHaveCount(1);
    await page.getByRole('button', { name: `Details of ${fluxId}` }).click();
    await expect(page.getByTestId('task-movement')).toHaveText([new RegExp(`^Held ${flux.cost} credits? · balance after [\\d,]+$`)]);
    await page.keyboard.press('Escape');

    // Task Logs as CSV, with the view's filter (this one task)
    const [logsCsv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-task-logs').click()]);
    expect(logsCsv.suggestedFilename()).toMatch(/^task-logs-\d{4}-\d\d-\d\d\.csv$/);
    const logs = await readCsv(logsCsv);
    expect(logs[0]).toEqual(['task_id', 'type', 'status', 'percentage', 'created_at', 'cost', 'refund', 'prompt', 'message']);
    expect(logs.slice(1).map((r) => [r[0], r[1], r[2]])).toEqual([[fluxId, 'flux-imagine', 'finished']]);
  });
});
