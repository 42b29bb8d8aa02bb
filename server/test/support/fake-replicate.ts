/**
 * A stand-in for Replicate's predictions API on a loopback port, following its documented
 * protocol (upstream-protocols.md C2): `Authorization: Bearer <token>`, POST /v1/predictions
 * {version, input} and POST /v1/models/{owner}/{name}/predictions {input} answering 201 with
 * the prediction, GET /v1/predictions/{id}, POST /v1/predictions/{id}/cancel, statuses
 * starting → processing → succeeded | failed | canceled (aborted for a deadline missed before
 * the start), errors as problem details `{ title, detail, status }`, 429 with `retry-after`.
 * Every GET of a prediction advances it one step of its scenario. Outputs are served from
 * /files/<id>.png (Replicate's delivery host needs no token).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface FakeStep {
  status: 'starting' | 'processing';
  logs?: string;
}

type FakeScenario =
  | { outcome: 'success'; steps?: FakeStep[]; output?: 'file' | 'list' | 'none' }
  | { outcome: 'failure'; steps?: FakeStep[]; error: string }
  | { outcome: 'aborted' }
  /** Never finishes (until cancelled). */
  | { outcome: 'hang' };

export interface FakeModel {
  owner: string;
  name: string;
  version: string;
  /** Required input fields (each a URL or a data URI). */
  inputs: string[];
}

interface FakePrediction {
  id: string;
  model: FakeModel;
  input: Record<string, unknown>;
  scenario: FakeScenario;
  gets: number;
  canceled: boolean;
  dataRemoved: boolean;
}

interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | null;
  status: number;
}

type Route = 'create' | 'get' | 'cancel';

export interface FakeReplicate {
  /** Base URL of the API (no /v1). */
  baseUrl: string;
  requests: RecordedRequest[];
  predictions: Map<string, FakePrediction>;
  /** The next `times` calls of `route` answer 429 with this `retry-after` (null: none). */
  throttle(route: Route, times: number, retryAfter: string | null): void;
  /** The next `times` calls of `route` answer `status` (a 5xx). */
  failNext(route: Route, times: number, status: number): void;
  /** As Replicate does about an hour later: input and output deleted. */
  removeData(id: string): void;
  close(): Promise<void>;
}

export const FAKE_FACESWAP_MODEL: FakeModel = {
  owner: 'cdingram',
  name: 'face-swap',
  version: 'd1d6ea8c8be89d664a07a457526f7128109dee7030fdac424788d762c71ed111',
  inputs: ['swap_image', 'input_image'],
};

export interface FakeReplicateOptions {
  token: string;
  models?: FakeModel[];
  scenario?: (input: Record<string, unknown>) => FakeScenario;
}

const DEFAULT_STEPS: FakeStep[] = [
  { status: 'starting' },
  { status: 'processing', logs: 'swapping\n 10%|#         |' },
  { status: 'processing', logs: 'swapping\n 10%|#         |\n 60%|######    |' },
];

/** A 1×1 PNG, the picture every successful prediction outputs. */
export const FAKE_OUTPUT_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201a7d4a3a30000000049454e44ae426082',
  'hex',
);

function problem(res: ServerResponse, status: number, title: string, detail: string, headers: Record<string, string> = {}): number {
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  res.end(JSON.stringify({ title, detail, status }));
  return status;
}

function json(res: ServerResponse, status: number, body: unknown): number {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
  return status;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return null;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

const isImageValue = (value: unknown) => typeof value === 'string' && (/^https?:\/\//.test(value) || /^data:image\/[a-z]+;base64,/.test(value));

export async function startFakeReplicate(options: FakeReplicateOptions): Promise<FakeReplicate> {
  const models = options.models ?? [FAKE_FACESWAP_MODEL];
  const predictions = new Map<string, FakePrediction>();
  const requests: RecordedRequest[] = [];
  const throttles: Record<Route, { times: number; retryAfter: string | null }> = {
    create: { times: 0, retryAfter: null },
    get: { times: 0, retryAfter: null },
    cancel: { times: 0, retryAfter: null },
  };
  const failures: Record<Route, { times: number; status: number }> = {
    create: { times: 0, status: 500 },
    get: { times: 0, status: 500 },
    cancel: { times: 0, status: 500 },
  };
  let nextId = 1;
  let baseUrl = '';

  function view(p: FakePrediction): Record<string, unknown> {
    const { scenario } = p;
    const steps = scenario.outcome === 'success' || scenario.outcome === 'failure' ? (scenario.steps ?? DEFAULT_STEPS) : [];
    const common = {
      id: p.id,
      model: `${p.model.owner}/${p.model.name}`,
      version: p.model.version,
      input: p.dataRemoved ? {} : p.input,
      created_at: '2026-11-24T10:00:00.000Z',
      urls: { get: `${baseUrl}/v1/predictions/${p.id}`, cancel: `${baseUrl}/v1/predictions/${p.id}/cancel` },
      data_removed: p.dataRemoved,
    };
    const active = (step: FakeStep | undefined) => ({ ...common, status: step?.status ?? 'starting', output: null, error: null, logs: step?.logs ?? '' });
    if (p.canceled) return { ...common, status: 'canceled', output: null, error: null, logs: '' };
    if (scenario.outcome === 'aborted') return { ...common, status: 'aborted', output: null, error: null, logs: '' };
    if (scenario.outcome === 'hang' || p.gets < steps.length) return active(steps[Math.min(p.gets, steps.length - 1)]);
    if (scenario.outcome === 'failure') return { ...common, status: 'failed', output: null, error: scenario.error, logs: 'Traceback …' };
    const file = `${baseUrl}/files/${p.id}.png`;
    const output = p.dataRemoved || scenario.output === 'none' ? null : scenario.output === 'list' ? [file] : file;
    return { ...common, status: 'succeeded', output, error: null, logs: 'done', metrics: { predict_time: 1.2 } };
  }

  function create(res: ServerResponse, model: FakeModel, input: unknown): number {
    if (typeof input !== 'object' || input === null) {
      return problem(res, 422, 'Input validation failed', '- input: Invalid type. Expected: object, given: null');
    }
    const values = input as Record<string, unknown>;
    const missing = model.inputs.filter((name) => !isImageValue(values[name]));
    if (missing.length > 0) return problem(res, 422, 'Input validation failed', missing.map((name) => `- input: ${name} is required`).join('\n'));
    const id = `fake${String(nextId++).padStart(6, '0')}`;
    const prediction: FakePrediction = {
      id,
      model,
      input: values,
      scenario: (options.scenario ?? (() => ({ outcome: 'success' }) as FakeScenario))(values),
      gets: 0,
      canceled: false,
      dataRemoved: false,
    };
    predictions.set(id, prediction);
    return json(res, 201, { ...view(prediction), status: 'starting', logs: '' });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown> | null): Promise<number> {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const files = /^\/files\/([^/]+)\.png$/.exec(path);
    if (req.method === 'GET' && files) {
      const p = predictions.get(files[1]);
      if (!p || p.dataRemoved) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': FAKE_OUTPUT_PNG.length }).end(FAKE_OUTPUT_PNG);
      return 200;
    }
    if (req.headers.authorization !== `Bearer ${options.token}`) {
      return problem(res, 401, 'Unauthenticated', 'You did not pass a valid authentication token');
    }
    const modelCreate = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(path);
    const get = /^\/v1\/predictions\/([^/]+)$/.exec(path);
    const cancel = /^\/v1\/predictions\/([^/]+)\/cancel$/.exec(path);
    const route: Route | undefined =
      req.method === 'POST' && (path === '/v1/predictions' || modelCreate)
        ? 'create'
        : req.method === 'GET' && get
          ? 'get'
          : req.method === 'POST' && cancel
            ? 'cancel'
            : undefined;
    if (!route) return problem(res, 404, 'Not found', 'The requested resource could not be found.');

    if (throttles[route].times > 0) {
      throttles[route].times--;
      const retryAfter = throttles[route].retryAfter;
      return problem(
        res,
        429,
        'Request was throttled',
        'Request was throttled. Your rate limit resets in ~1s.',
        retryAfter === null ? {} : { 'retry-after': retryAfter },
      );
    }
    if (failures[route].times > 0) {
      failures[route].times--;
      return problem(res, failures[route].status, 'Internal Server Error', 'Something went wrong on our side.');
    }

    if (route === 'create') {
      if (modelCreate) {
        const model = models.find((m) => m.owner === modelCreate[1] && m.name === modelCreate[2]);
        if (!model) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
        return create(res, model, body?.input);
      }
      const model = models.find((m) => m.version === body?.version);
      if (!model) {
        return problem(res, 422, 'Invalid version or not permitted', "The specified version does not exist (or perhaps you don't have permission to use it?)");
      }
      return create(res, model, body?.input);
    }
    const prediction = predictions.get((get ?? cancel)?.[1] ?? '');
    if (!prediction) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
    if (route === 'cancel') {
      const current = view(prediction);
      if (current.status === 'starting' || current.status === 'processing') prediction.canceled = true;
      return json(res, 200, view(prediction));
    }
    const answer = view(prediction);
    prediction.gets += 1;
    return json(res, 200, answer);
  }

  const server = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readJson(req) : null;
      // recorded before the answer leaves, so a test that got the answer sees the request
      const record: RecordedRequest = {
        method: req.method ?? '',
        path: new URL(req.url ?? '/', 'http://fake').pathname,
        headers: req.headers,
        body,
        status: 0,
      };
      requests.push(record);
      record.status = await handle(req, res, body);
    })().catch((error: unknown) => problem(res, 500, 'Internal Server Error', String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    requests,
    predictions,
    throttle(route, times, retryAfter) {
      throttles[route] = { times, retryAfter };
    },
    failNext(route, times, status) {
      failures[route] = { times, status };
    },
    removeData(id) {
      const p = predictions.get(id);
      if (p) p.dataRemoved = true;
    },
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      })),
  };
}
