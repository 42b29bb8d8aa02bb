/**
 * A scripted stand-in for a midjourney-proxy upstream on a loopback port, speaking the same
 * shapes (upstream-protocols.md C1): /mj/submit/{imagine,change,action}, /mj/task/{id}/fetch
 * and /mj/task/{id}/image-seed, with the `mj-api-secret` header. Every fetch of a task
 * advances it one step through its scenario's progress strings, then to its outcome.
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
}

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
  if (task.action === 'UPSCALE') {
    return [
      { customId: `MJ::JOB::upsample_v6_2x_subtle::1::${hash}::SOLO`, label: 'Upscale (Subtle)' },
      { customId: `MJ::JOB::upsample_v6_2x_creative::1::${hash}::SOLO`, label: 'Upscale (Creative)' },
    ];
  }
  return [1, 2, 3, 4].flatMap((i) => [
    { customId: `MJ::JOB::upsample::${i}::${hash}`, label: `U${i}` },
    { customId: `MJ::JOB::variation::${i}::${hash}`, label: `V${i}` },
  ]);
}

function taskView(task: FakeTask, baseUrl: string): Record<string, unknown> {
  const step = task.fetches;
  task.fetches += 1;
  const { scenario } = task;
  const common = { id: task.id, action: task.action, prompt: task.prompt ?? '', submitTime: 1_700_000_000_000 };
  if (step < scenario.progress.length) {
    return { ...common, status: step === 0 ? 'SUBMITTED' : 'IN_PROGRESS', progress: scenario.progress[step], imageUrl: null, failReason: null };
  }
  if (scenario.outcome === 'failure') {
    return { ...common, status: 'FAILURE', progress: '', imageUrl: null, failReason: scenario.failReason };
  }
  const cells = scenario.withCells ? [1, 2, 3, 4].map((i) => ({ url: `${baseUrl}/images/${task.id}-${i}.png` })) : undefined;
  return {
    ...common,
    status: 'SUCCESS',
    progress: '100%',
    imageUrl: `${baseUrl}/images/${task.id}.png`,
    imageUrls: cells,
    seed: scenario.seed,
    width: task.action === 'UPSCALE' ? 1024 : 2048,
    height: task.action === 'UPSCALE' ? 1024 : 2048,
    failReason: null,
    buttons: buttonsFor(task),
  };
}

export async function startFakeMidjourneyProxy(options: FakeMidjourneyProxyOptions = {}): Promise<FakeMidjourneyProxy> {
  const tasks = new Map<string, FakeTask>();
  const requests: RecordedRequest[] = [];
  let nextId = 1_700_000_000_000_000;
  let baseUrl = '';

  const accept = (res: ServerResponse, action: string, prompt?: string) => {
    const scenario = (options.scenario ?? (() => DEFAULT_SCENARIO))({ action, prompt });
    if (scenario.outcome === 'banned') {
      return send(res, 200, { code: 24, description: '可能包含敏感词', result: null, properties: { promptEn: prompt, bannedWord: scenario.bannedWord } });
    }
    if (scenario.outcome === 'submit-code') return send(res, 200, { code: scenario.code, description: scenario.description, result: null });
    const id = String(nextId++);
    tasks.set(id, { id, action, prompt, scenario, fetches: 0 });
    send(res, 200, { code: 1, description: '提交成功', result: id, properties: {} });
  };

  const server = createServer((req, res) => {
    void (async () => {
      // trueai's mode-pinned prefixes (/mj-fast/mj/..., /mj-turbo/mj/...) reach the same routes
      const path = new URL(req.url ?? '/', 'http://fake').pathname.replace(/^\/mj-(fast|turbo|relax)(?=\/mj\/)/, '');
      const body = req.method === 'POST' ? await readJson(req) : null;
      requests.push({ method: req.method ?? 'GET', path, url: req.url ?? '', headers: req.headers, body });
      if (options.secret && req.headers['mj-api-secret'] !== options.secret) return send(res, 401, { error: 'unauthorized' });

      if (req.method === 'POST' && path === '/mj/submit/imagine') {
        if (typeof body?.prompt !== 'string' || !body.prompt) return send(res, 200, { code: 4, description: 'prompt不能为空' });
        return accept(res, 'IMAGINE', body.prompt);
      }
      if (req.method === 'POST' && (path === '/mj/submit/change' || path === '/mj/submit/action')) {
        const parent = tasks.get(String(body?.taskId));
        if (!parent) return send(res, 200, { code: 3, description: '关联任务不存在或已失效' });
        let action = String(body?.action ?? '');
        if (path === '/mj/submit/action') {
          const customId = String(body?.customId ?? '');
          if (!buttonsFor(parent).some((b) => b.customId === customId)) return send(res, 200, { code: 4, description: 'customId无效' });
          action = customId.includes('upsample') ? 'UPSCALE' : 'ACTION';
        }
        return accept(res, action, parent.prompt);
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
