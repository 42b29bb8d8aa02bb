/**
 * A scripted stand-in for a midjourney-proxy upstream on a loopback port, speaking the same
 * shapes (upstream-protocols.md C1; trueai's superset): /mj/submit/{imagine,change,action,
 * modal,blend,describe,shorten}, /mj/task/{id}/fetch and /mj/task/{id}/image-seed, with the
 * `mj-api-secret` header. Every fetch of a task advances it one step through its scenario's
 * progress strings, then to its outcome. An upscaled image offers trueai's buttons (Upscale
 * Subtle/Creative, Vary Strong/Subtle/Region, Zoom Out 2x/1.5x, Custom Zoom, the four pans);
 * Vary (Region) and Custom Zoom answer code 21 and wait in MODAL until /submit/modal confirms
 * them (a prompt, and for Vary (Region) a maskBase64 data URI), as trueai does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type FakeScenario =
  | { outcome: 'success'; progress: string[]; seed?: string; withCells?: boolean }
  | { outcome: 'failure'; progress: string[]; failReason: string }
  | { outcome: 'banned'; bannedWord: string }
  | { outcome: 'submit-code'; code: number; description: string };

interface RecordedRequest {
  method: string;
  /** The route, without a mode prefix. */
  path: string;
  /** The path as requested. */
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | null;
}

interface FakeTask {
  id: string;
  action: string;
  prompt?: string;
  scenario: Extract<FakeScenario, { outcome: 'success' | 'failure' }>;
  fetches: number;
  /** Waiting for /submit/modal (Vary (Region), Custom Zoom); `needsMask`: Vary (Region). */
  modal?: { needsMask: boolean };
}

/** The four prompts of a describe and the analysis of a shorten, as the bot writes them. */
const FAKE_DESCRIBE_TEXT =
  '1\uFE0F\u20E3 a red fox in fresh snow, golden hour --ar 3:2\n\n2\uFE0F\u20E3 fox portrait, winter forest --ar 3:2\n\n3\uFE0F\u20E3 a wild animal in the snow, soft light --ar 3:2\n\n4\uFE0F\u20E3 red fur against white, minimalism --ar 3:2';
export const FAKE_SHORTEN_TEXT =
  '## Important tokens\nlighthouse, cliff, sunset\n## Shortened prompts\n1\uFE0F\u20E3 lighthouse on a cliff at sunset\n2\uFE0F\u20E3 lighthouse, cliff, sunset\n3\uFE0F\u20E3 lighthouse sunset\n\nClick on a button to imagine one of the shortened prompts';

const FAKE_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201a7d4a3a30000000049454e44ae426082',
  'hex',
);

/** Actions whose result is one picture; describe and shorten have none; the rest are grids. */
const SINGLE_ACTIONS = new Set(['UPSCALE']);
const TEXT_ACTIONS = new Set(['DESCRIBE', 'SHORTEN']);

export interface FakeMidjourneyProxy {
  /** Base URL including the `/mj` context path, as the adapter expects. */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface FakeMidjourneyProxyOptions {
  /** When set, requests without this `mj-api-secret` get 401. */
  secret?: string;
  /** Chooses the behaviour of each submitted task. Default: success with a few steps. */
  scenario?: (submit: { action: string; prompt?: string }) => FakeScenario;
}

const DEFAULT_SCENARIO: FakeScenario = { outcome: 'success', progress: ['0%', '30%', '70%'] };

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return null;
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

function buttonsFor(task: FakeTask): Array<{ customId: string; label: string }> {
  const hash = `hash-${task.id}`;
  if (TEXT_ACTIONS.has(task.action)) return [];
  if (SINGLE_ACTIONS.has(task.action)) {
    // a v6 upscale: no 2x/4x enlargements (those are v5 buttons)
    return [
      { customId: `MJ::JOB::upsample_v6_2x_subtle::1::${hash}::SOLO`, label: 'Upscale (Subtle)' },
      { customId: `MJ::JOB::upsample_v6_2x_creative::1::${hash}::SOLO`, label: 'Upscale (Creative)' },
      { customId: `MJ::JOB::low_variation::1::${hash}::SOLO`, label: 'Vary (Subtle)' },
      { customId: `MJ::JOB::high_variation::1::${hash}::SOLO`, label: 'Vary (Strong)' },
      { customId: `MJ::Inpaint::1::${hash}::SOLO`, label: 'Vary (Region)' },
      { customId: `MJ::Outpaint::50::1::${hash}::SOLO`, label: 'Zoom Out 2x' },
      { customId: `MJ::Outpaint::75::1::${hash}::SOLO`, label: 'Zoom Out 1.5x' },
      { customId: `MJ::CustomZoom::1::${hash}`, label: 'Custom Zoom' },
      ...['left', 'right', 'up', 'down'].map((d) => ({ customId: `MJ::JOB::pan_${d}::1::${hash}::SOLO`, label: '' })),
    ];
  }
  return [
    ...[1, 2, 3, 4].flatMap((i) => [
      { customId: `MJ::JOB::upsample::${i}::${hash}`, label: `U${i}` },
      { customId: `MJ::JOB::variation::${i}::${hash}`, label: `V${i}` },
    ]),
    { customId: `MJ::JOB::reroll::0::${hash}::SOLO`, label: '' },
  ];
}

/** The action trueai records for a pressed button, and whether it waits for a modal. */
function actionOf(customId: string): { action: string; modal?: { needsMask: boolean } } {
  if (customId.includes('upsample')) return { action: 'UPSCALE' };
  if (customId.startsWith('MJ::Inpaint::')) return { action: 'INPAINT', modal: { needsMask: true } };
  if (customId.startsWith('MJ::CustomZoom::')) return { action: 'ZOOM', modal: { needsMask: false } };
  if (customId.startsWith('MJ::Outpaint::')) return { action: 'ZOOM' };
  if (customId.includes('::pan_')) return { action: 'PAN' };
  if (customId.includes('_variation::') || customId.includes('::variation::')) return { action: 'VARIATION' };
  if (customId.includes('::reroll::')) return { action: 'REROLL' };
  return { action: 'ACTION' };
}

const isDataUri = (value: unknown) => typeof value === 'string' && /^data:image\/(png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+=*$/.test(value);

function taskView(task: FakeTask, baseUrl: string): Record<string, unknown> {
  const step = task.fetches;
  task.fetches += 1;
  const { scenario } = task;
  const common = { id: task.id, action: task.action, prompt: task.prompt ?? '', submitTime: 1_700_000_000_000 };
  if (task.modal) {
    task.fetches = step;
    return { ...common, status: 'MODAL', progress: '0%', imageUrl: null, failReason: null, description: 'Waiting for window confirm' };
  }
  if (step < scenario.progress.length) {
    return { ...common, status: step === 0 ? 'SUBMITTED' : 'IN_PROGRESS', progress: scenario.progress[step], imageUrl: null, failReason: null };
  }
  if (scenario.outcome === 'failure') {
    return { ...common, status: 'FAILURE', progress: '', imageUrl: null, failReason: scenario.failReason };
  }
  if (task.action === 'DESCRIBE') {
    const text = FAKE_DESCRIBE_TEXT;
    return {
      ...common,
      status: 'SUCCESS',
      progress: '100%',
      imageUrl: `${baseUrl}/images/${task.id}.png`,
      promptEn: text,
      properties: { finalPrompt: text },
      failReason: null,
    };
  }
  if (task.action === 'SHORTEN') {
    const text = FAKE_SHORTEN_TEXT;
    return { ...common, status: 'SUCCESS', progress: '100%', imageUrl: null, description: text, properties: { finalPrompt: text }, failReason: null };
  }
  const single = SINGLE_ACTIONS.has(task.action);
  const cells = scenario.withCells && !single ? [1, 2, 3, 4].map((i) => ({ url: `${baseUrl}/images/${task.id}-${i}.png` })) : undefined;
  return {
    ...common,
    status: 'SUCCESS',
    progress: '100%',
    imageUrl: `${baseUrl}/images/${task.id}.png`,
    imageUrls: cells,
    seed: scenario.seed,
    width: single ? 1024 : 2048,
    height: single ? 1024 : 2048,
    failReason: null,
    buttons: buttonsFor(task),
  };
}

export async function startFakeMidjourneyProxy(options: FakeMidjourneyProxyOptions = {}): Promise<FakeMidjourneyProxy> {
  const tasks = new Map<string, FakeTask>();
  const requests: RecordedRequest[] = [];
  let nextId = 1_700_000_000_000_000;
  let baseUrl = '';

  const accept = (res: ServerResponse, action: string, prompt?: string, modal?: { needsMask: boolean }) => {
    const scenario = (options.scenario ?? (() => DEFAULT_SCENARIO))({ action, prompt });
    if (scenario.outcome === 'banned') {
      return send(res, 200, { code: 24, description: '可能包含敏感词', result: null, properties: { promptEn: prompt, bannedWord: scenario.bannedWord } });
    }
    if (scenario.outcome === 'submit-code') return send(res, 200, { code: scenario.code, description: scenario.description, result: null });
    const id = String(nextId++);
    tasks.set(id, { id, action, prompt, scenario, fetches: 0, modal });
    // trueai: a button that opens a modal answers 21 and the task waits in MODAL
    if (modal) return send(res, 200, { code: 21, description: 'Waiting for window confirm', result: id, properties: {} });
    send(res, 200, { code: 1, description: '提交成功', result: id, properties: {} });
  };

  const server = createServer((req, res) => {
    void (async () => {
      // trueai's mode-pinned prefixes (/mj-fast/mj/..., /mj-turbo/mj/...) reach the same routes
      const path = new URL(req.url ?? '/', 'http://fake').pathname.replace(/^\/mj-(fast|turbo|relax)(?=\/mj\/)/, '');
      const body = req.method === 'POST' ? await readJson(req) : null;
      requests.push({ method: req.method ?? 'GET', path, url: req.url ?? '', headers: req.headers, body });
      // the pictures its tasks name (a Discord CDN stand-in, no secret asked): a 1×1 png whatever the name
      if (req.method === 'GET' && /^\/mj\/images\/[^/]+\.png$/.test(path)) {
        return res.writeHead(200, { 'content-type': 'image/png' }).end(FAKE_PNG);
      }
      if (options.secret && req.headers['mj-api-secret'] !== options.secret) return send(res, 401, { error: 'unauthorized' });

      if (req.method === 'POST' && path === '/mj/submit/imagine') {
        if (typeof body?.prompt !== 'string' || !body.prompt) return send(res, 200, { code: 4, description: 'prompt不能为空' });
        return accept(res, 'IMAGINE', body.prompt);
      }
      if (req.method === 'POST' && (path === '/mj/submit/change' || path === '/mj/submit/action')) {
        const parent = tasks.get(String(body?.taskId));
        if (!parent) return send(res, 200, { code: 3, description: '关联任务不存在或已失效' });
        let action = String(body?.action ?? '');
        let modal: { needsMask: boolean } | undefined;
        if (path === '/mj/submit/action') {
          const customId = String(body?.customId ?? '');
          if (!buttonsFor(parent).some((b) => b.customId === customId)) return send(res, 200, { code: 4, description: 'customId无效' });
          ({ action, modal } = actionOf(customId));
        } else if (SINGLE_ACTIONS.has(parent.action) || TEXT_ACTIONS.has(parent.action)) {
          // novicezk: U, V and R only on IMAGINE, VARIATION, REROLL and BLEND tasks
          return send(res, 200, { code: 4, description: '关联任务不允许执行变化' });
        }
        return accept(res, action, parent.prompt, modal);
      }
      if (req.method === 'POST' && path === '/mj/submit/modal') {
        const task = tasks.get(String(body?.taskId));
        if (!task) return send(res, 404, { code: 3, description: '关联任务不存在或已失效' });
        if (typeof body?.prompt !== 'string' || !body.prompt.trim()) return send(res, 200, { code: 4, description: '参数错误' });
        if (!task.modal) return send(res, 200, { code: 4, description: '任务状态错误' });
        if (task.modal.needsMask && !isDataUri(body.maskBase64)) return send(res, 200, { code: 4, description: 'base64格式错误' });
        task.modal = undefined;
        task.prompt = body.prompt;
        task.fetches = 0;
        return send(res, 200, { code: 1, description: '提交成功', result: task.id, properties: {} });
      }
      if (req.method === 'POST' && path === '/mj/submit/blend') {
        const images = body?.base64Array;
        if (!Array.isArray(images) || images.length < 2 || images.length > 5 || !images.every(isDataUri)) {
          return send(res, 200, { code: 4, description: 'base64List参数错误' });
        }
        if (!['SQUARE', 'PORTRAIT', 'LANDSCAPE'].includes(String(body?.dimensions))) return send(res, 200, { code: 4, description: 'dimensions参数错误' });
        return accept(res, 'BLEND');
      }
      if (req.method === 'POST' && path === '/mj/submit/describe') {
        if (!isDataUri(body?.base64)) return send(res, 200, { code: 4, description: 'base64格式错误' });
        return accept(res, 'DESCRIBE');
      }
      if (req.method === 'POST' && path === '/mj/submit/shorten') {
        if (typeof body?.prompt !== 'string' || !body.prompt) return send(res, 200, { code: 4, description: 'prompt不能为空' });
        return accept(res, 'SHORTEN', body.prompt);
      }
      const seedMatch = /^\/mj\/task\/([^/]+)\/image-seed$/.exec(path);
      if (req.method === 'GET' && seedMatch) {
        const task = tasks.get(seedMatch[1]);
        if (task?.scenario.outcome !== 'success' || !task.scenario.seed) return send(res, 200, { code: 3, description: '任务不存在' });
        return send(res, 200, { code: 1, description: '成功', result: task.scenario.seed });
      }
      const fetchMatch = /^\/mj\/task\/([^/]+)\/fetch$/.exec(path);
      if (req.method === 'GET' && fetchMatch) {
        const task = tasks.get(fetchMatch[1]);
        // novicezk answers an unknown id with an empty 200
        if (!task) return res.writeHead(200).end();
        return send(res, 200, taskView(task, baseUrl));
      }
      send(res, 404, { error: 'not found' });
    })().catch((error: unknown) => send(res, 500, { error: String(error) }));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mj`;
  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    requests,
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      })),
  };
}
