// @vitest-environment jsdom
// Issue 23: each click that creates a task sends its own Idempotency-Key; a retry of that click
// (sent again after no answer came back) sends the same one. Requests are seen at the API
// client's fetch, as the server would see them.
import { cleanup, screen, waitFor } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChakraProvider } from '@chakra-ui/react';
import { MemoryRouter } from 'react-router-dom';
import { createApiClient, createTypedApi, DEFAULT_API_ERROR } from '@aim/shared-kit/api';
import type { getSupabaseClient } from '@aim/shared-kit/supabase';
import { system } from '@aim/shared-kit/theme';
import { postCreate } from '../src/features/tasks/create-call.ts';
import { createMidjourneyGateway } from '../src/features/midjourney/gateway.ts';
import { MidjourneyTool } from '../src/features/midjourney/midjourney-tool.tsx';
import { makeTask } from './support/fake-gateway.ts';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

type Sent = { path: string; key: string | undefined };

/**
 * A fetch that records each create request's path and key; `answers` (task ids) are used in order
 * by them (an Error: no answer at all). Other calls (a queued task's /fetch) answer nothing of note.
 */
function recordingFetch(answers: (Error | string)[]) {
  const sent: Sent[] = [];
  let n = 0;
  const fetchImpl = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    const path = String(url).replace('http://api.test', '');
    if (path === '/fetch') return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    sent.push({ path, key: (init?.headers as Record<string, string> | undefined)?.['Idempotency-Key'] });
    const answer = answers[Math.min(n++, answers.length - 1)]!;
    if (answer instanceof Error) throw answer;
    return new Response(JSON.stringify({ task_id: answer }), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { sent, fetchImpl };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function renderTool(answers: (Error | string)[]) {
  const { sent, fetchImpl } = recordingFetch(answers);
  const onError = vi.fn();
  const api = createTypedApi(createApiClient({ baseUrl: 'http://api.test', getApiKey: () => 'key-1', onError, fetchImpl }));
  const notifyError = vi.fn();
  const gateway = {
    ...createMidjourneyGateway(api, {} as ReturnType<typeof getSupabaseClient>, 'me@example.com', true, notifyError),
    // The task rows come from supabase-js, not from this test's concern: each new task reads as queued.
    readTask: async (id: string) => ({ task: makeTask({ id, status: 'queued', percentage: 0, image_url: null, image_urls: null }), archived: false }),
    watchTask: () => () => {},
    readLineage: async () => [],
  };
  render(
    <ChakraProvider value={system}>
      <MemoryRouter initialEntries={['/dashboard/tools/midjourney']}>
        <MidjourneyTool gateway={gateway} mode="embedded" notifyError={notifyError} seedDelayMs={0} />
      </MemoryRouter>
    </ChakraProvider>,
  );
  return { sent, onError, notifyError, user: userEvent.setup() };
}

const imagineButton = () => screen.getByRole('button', { name: 'Imagine' }) as HTMLButtonElement;

describe('Idempotency-Key on the Midjourney tool', () => {
  it('two clicks on Imagine send two different keys', async () => {
    const { sent, user } = renderTool(['t1', 't2']);
    await user.type(screen.getByRole('textbox', { name: 'Prompt' }), 'a lighthouse');
    await user.click(imagineButton());
    await waitFor(() => expect(screen.getByTestId('task-view').dataset.taskId).toBe('t1'), { timeout: 10_000 });
    await waitFor(() => expect(imagineButton().disabled).toBe(false), { timeout: 10_000 });
    await user.click(imagineButton());
    await waitFor(() => expect(sent).toHaveLength(2), { timeout: 10_000 });
    await waitFor(() => expect(screen.getByTestId('task-view').dataset.taskId).toBe('t2'), { timeout: 10_000 });

    expect(sent.map((s) => s.path)).toEqual(['/pro/imagine', '/pro/imagine']);
    expect(sent[0]!.key).toMatch(UUID);
    expect(sent[1]!.key).toMatch(UUID);
    expect(sent[1]!.key).not.toBe(sent[0]!.key);
  });

  it('a click whose request got no answer is sent again with the same key, and shows one task and no error', async () => {
    const { sent, onError, notifyError, user } = renderTool([new TypeError('Failed to fetch'), 't1']);
    await user.type(screen.getByRole('textbox', { name: 'Prompt' }), 'a lighthouse');
    await user.click(imagineButton());
    await waitFor(() => expect(screen.getByTestId('task-view').dataset.taskId).toBe('t1'), { timeout: 10_000 });

    expect(sent).toHaveLength(2);
    expect(sent[0]!.key).toMatch(UUID);
    expect(sent[1]!.key).toBe(sent[0]!.key);
    expect(onError).not.toHaveBeenCalled();
    expect(notifyError).not.toHaveBeenCalled();
  });
});

describe('postCreate', () => {
  const api = (answers: (Error | string)[], onError = vi.fn()) => {
    const recorded = recordingFetch(answers);
    return {
      ...recorded,
      onError,
      client: createTypedApi(createApiClient({ baseUrl: 'http://api.test', getApiKey: () => 'k', onError, fetchImpl: recorded.fetchImpl })),
    };
  };

  it('tries once more with the same key after no answer, then says the error once', async () => {
    const { client, sent, onError } = api([new TypeError('Failed to fetch')]);
    const notifyError = vi.fn();
    await expect(postCreate(client, '/pro/imagine', { prompt: 'x' }, 'key-a', { notifyError })).rejects.toThrow(DEFAULT_API_ERROR);
    expect(sent).toEqual([
      { path: '/pro/imagine', key: 'key-a' },
      { path: '/pro/imagine', key: 'key-a' },
    ]);
    expect(notifyError).toHaveBeenCalledTimes(1);
    expect(notifyError).toHaveBeenCalledWith(DEFAULT_API_ERROR);
    expect(onError).not.toHaveBeenCalled();
  });

  it('leaves the error to the caller with toastOnError: false', async () => {
    const { client } = api([new TypeError('Failed to fetch')]);
    const notifyError = vi.fn();
    await expect(
      postCreate(client, '/ai-photo-train', { training_images_id: 'upload-1', trigger_word: 'someone' }, 'key-b', { toastOnError: false, notifyError }),
    ).rejects.toThrow(DEFAULT_API_ERROR);
    expect(notifyError).not.toHaveBeenCalled();
  });
});
