import { expect, test } from '@playwright/test';
import { screenshot } from '../support/journeys.ts';
import { readTaskRow, submitTask, waitForTerminal } from '../support/tasks.ts';
import { applyCredit, createUser, signIn } from '../support/users.ts';

test.describe('Task Logs', () => {
  test('tasks made with the API are listed newest first, filtered, paged, found by id and opened', async ({ context, page }) => {
    test.setTimeout(120_000);
    const user = await createUser('logreader', { onboarded: true });
    await applyCredit(user.id, 1_000, 'e2e credits for the Task Logs journey');
    const key = user.row.api_key;
    const imagines: string[] = [];
    for (let i = 0; i < 11; i++) imagines.push(await submitTask(key, '/pro/imagine', { prompt: `a lighthouse, take ${i}` }));
    const fluxId = await submitTask(key, '/flux/imagine', { prompt: 'a lighthouse in flux' });
    for (const id of [...imagines, fluxId]) expect((await waitForTerminal(key, id)).status).toBe('finished');

    await signIn(context, user);
    await page.goto('/dashboard/task-logs');
    await expect(page.getByRole('heading', { name: 'Task Logs' })).toBeVisible();
    const rows = page.getByTestId('task-log-row');
    await expect(page.getByTestId('task-count')).toHaveText('12 tasks');
    await expect(rows).toHaveCount(12);
    await expect(rows.first()).toHaveAttribute('data-task-id', fluxId);
    await expect(rows.first()).toContainText('flux-imagine');
    await expect(rows.first()).toContainText('finished');
    await expect(rows.first().getByTestId('created-at')).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await screenshot(page, 'task-logs');

    // UTC by default; local time on request
    await page.getByRole('button', { name: 'Show Local Time' }).click();
    await expect(page.getByRole('button', { name: 'Show UTC' })).toBeVisible();
    await expect(rows.first().getByTestId('created-at')).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    // filters: a type group, a status with nothing in it
    await page.getByTestId('type-filter').selectOption('flux');
    await expect(rows).toHaveCount(1);
    await expect(page).toHaveURL(/\/dashboard\/task-logs\?type=flux$/);
    await page.getByTestId('type-filter').selectOption('midjourney');
    await expect(rows).toHaveCount(11);
    await page.getByTestId('status-filter').selectOption('finished');
    await expect(rows).toHaveCount(11);
    await page.getByTestId('status-filter').selectOption('failed');
    await expect(page.getByTestId('task-logs-empty')).toHaveText('No results.');
    await page.getByTestId('status-filter').selectOption('all');
    await page.getByTestId('type-filter').selectOption('all');

    // pages of 10
    await page.getByTestId('page-size').selectOption('10');
    await expect(page.getByTestId('page-of')).toHaveText('Page 1 of 2');
    await expect(rows).toHaveCount(10);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByTestId('page-of')).toHaveText('Page 2 of 2');
    await expect(rows).toHaveCount(2);
    await expect(rows.last()).toHaveAttribute('data-task-id', imagines[0]);

    // one task by its id, and its result data
    await page.getByTestId('task-id-filter').fill(fluxId);
    await page.getByTestId('task-id-filter').press('Enter');
    await expect(rows).toHaveCount(1);
    await page.getByRole('button', { name: `Details of ${fluxId}` }).click();
    const detail = page.getByTestId('task-detail');
    await expect(detail).toBeVisible();
    const stored = await readTaskRow(fluxId);
    expect(JSON.parse((await detail.getByTestId('task-detail-result').textContent())!)).toEqual(stored.result);
    await screenshot(page, 'task-logs-detail');
  });
});
