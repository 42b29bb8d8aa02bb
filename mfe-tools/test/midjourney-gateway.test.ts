import { describe, expect, it, vi } from 'vitest';
import { createApiClient, createTypedApi, DEFAULT_API_ERROR } from '@aim/shared-kit/api';
import type { getSupabaseClient } from '@aim/shared-kit/supabase';
import { createMidjourneyGateway, type MidjourneyGateway } from '../src/features/midjourney/gateway.ts';

/** Each request as the server receives it: method, path, the exact JSON body and its Idempotency-Key. */
function recordingGateway() {
  const requests: { method: string; path: string; body: string; key: string | undefined }[] = [];
  const fetchImpl = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    const key = (init?.headers as Record<string, string> | undefined)?.['Idempotency-Key'];
    requests.push({ method: init?.method ?? 'GET', path: String(url).replace('http://api.test', ''), body: String(init?.body), key });
    return new Response(JSON.stringify({ task_id: 'new-task' }), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  const api = createTypedApi(createApiClient({ baseUrl: 'http://api.test', getApiKey: () => 'key-1', fetchImpl }));
  const gateway = createMidjourneyGateway(api, {} as ReturnType<typeof getSupabaseClient>, 'me@example.com', true);
  return { gateway, requests, fetchImpl };
}

const PARENT = '8d2f1a64-5b3c-4e7d-9f10-2a3b4c5d6e7f';
const KEY = '0b7c1e52-9d4a-4f3e-8a61-5c2d7e9f0a13';

describe('the payloads the Midjourney tool sends (spec §7, issue 13 paths)', () => {
  it.each<[string, (g: MidjourneyGateway) => Promise<string>, string, unknown]>([
    ['Imagine', (g) => g.imagine('a lighthouse', KEY), '/pro/imagine', { prompt: 'a lighthouse' }],
    ['Upscale image 2 (spec §7)', (g) => g.upscale(PARENT, 2, 'creative', KEY), '/pro/upscale', { parent_task_id: PARENT, index: 2, type: 'creative' }],
    ['Upscale (Subtle) of image 4', (g) => g.upscale(PARENT, 4, 'subtle', KEY), '/pro/upscale', { parent_task_id: PARENT, index: 4, type: 'subtle' }],
    ['Upscale 2x of an upscaled image', (g) => g.upscale(PARENT, 1, '2x', KEY), '/pro/upscale', { parent_task_id: PARENT, index: 1, type: '2x' }],
    ['Variation of image 3 (spec §7)', (g) => g.variation(PARENT, 3, KEY), '/pro/variations', { parent_task_id: PARENT, index: 3 }],
    ['Vary (Strong) of image 1', (g) => g.varyCell(PARENT, 1, 'strong', KEY), '/pro/vary', { parent_task_id: PARENT, index: 1, type: 'strong' }],
    ['Vary (Subtle) of an upscaled image', (g) => g.varyImage(PARENT, 'subtle', KEY), '/variations', { parent_task_id: PARENT, index: 'subtle' }],
    ['Pan left', (g) => g.pan(PARENT, 'left', KEY), '/pan', { parent_task_id: PARENT, direction: 'left' }],
    ['Pan down', (g) => g.pan(PARENT, 'down', KEY), '/pan', { parent_task_id: PARENT, direction: 'down' }],
    ['Zoom Out 2x', (g) => g.zoomOut(PARENT, 2, KEY), '/outpaint', { parent_task_id: PARENT, zoom_ratio: 2 }],
    ['Zoom Out 1.5x', (g) => g.zoomOut(PARENT, 1.5, KEY), '/outpaint', { parent_task_id: PARENT, zoom_ratio: 1.5 }],
    [
      'Custom Zoom',
      (g) => g.zoomOut(PARENT, 1.3, KEY, { prompt: ' a wide bay ', aspectRatio: '16:9' }),
      '/outpaint',
      { parent_task_id: PARENT, zoom_ratio: 1.3, aspect_ratio: '16:9', prompt: 'a wide bay' },
    ],
    ['Custom Zoom, blank prompt, same shape', (g) => g.zoomOut(PARENT, 1, KEY, { prompt: '  ' }), '/outpaint', { parent_task_id: PARENT, zoom_ratio: 1 }],
    // The API refuses an empty prompt; without one it keeps the picture's.
    ['Vary (Region), blank prompt', (g) => g.varyRegion(PARENT, 'iVBORw0KGgo=', '   ', KEY), '/inpaint', { parent_task_id: PARENT, mask: 'iVBORw0KGgo=' }],
    [
      'Vary (Region)',
      (g) => g.varyRegion(PARENT, 'iVBORw0KGgo=', 'a red door', KEY),
      '/inpaint',
      { parent_task_id: PARENT, mask: 'iVBORw0KGgo=', prompt: 'a red door' },
    ],
    ['Describe', (g) => g.describe('http://localhost:8080/media/u.png', KEY), '/describe', { image_url: 'http://localhost:8080/media/u.png' }],
    [
      'Blend',
      (g) => g.blend(['http://m/a.png', 'http://m/b.png'], 'portrait', KEY),
      '/blend',
      { image_urls: ['http://m/a.png', 'http://m/b.png'], dimension: 'portrait' },
    ],
    ['Shorten', (g) => g.shorten('a long prompt', KEY), '/shorten', { prompt: 'a long prompt' }],
    ['Reroll', (g) => g.reroll(PARENT, KEY), '/pro/reroll', { parent_task_id: PARENT }],
    ['Get Seed', (g) => g.requestSeed(PARENT, KEY), '/pro/seed', { task_id: PARENT }],
  ])("%s → POST %s with exactly %j, and the action's Idempotency-Key", async (_name, call, path, body) => {
    const { gateway, requests } = recordingGateway();
    expect(await call(gateway)).toBe('new-task');
    expect(requests).toEqual([{ method: 'POST', path, body: JSON.stringify(body), key: KEY }]);
  });
});

describe("the spec's errors (§8)", () => {
  const failing = (status: number, body: string | null) => {
    const onError = vi.fn();
    const fetchImpl = vi.fn(async () => new Response(body, { status, headers: { 'content-type': 'application/json' } })) as typeof fetch;
    const api = createTypedApi(createApiClient({ baseUrl: 'http://api.test', getApiKey: () => 'key-1', onError, fetchImpl }));
    // The gateway shows a create call's error itself (after its retry), the client's way.
    return { gateway: createMidjourneyGateway(api, {} as ReturnType<typeof getSupabaseClient>, null, true, onError), onError, fetchImpl };
  };

  it.each([
    [
      'the server message from errors[0].msg',
      409,
      JSON.stringify({ errors: [{ msg: 'Pan needs an upscaled image', code: 'conflict' }] }),
      'Pan needs an upscaled image',
    ],
    ['the default when the body has none', 500, 'oops', DEFAULT_API_ERROR],
    ['the default for an empty msg', 400, JSON.stringify({ errors: [{ msg: ' ' }] }), DEFAULT_API_ERROR],
  ])('a refused action toasts %s and creates nothing', async (_name, status, body, message) => {
    const { gateway, onError, fetchImpl } = failing(status, body);
    await expect(gateway.pan(PARENT, 'up', KEY)).rejects.toThrow(message);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(message);
    // An answer, even a refusal, is final: only a request that got none is sent again.
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    expect(DEFAULT_API_ERROR).toBe('An unexpected error occured, Please refresh and try again!');
  });
});
