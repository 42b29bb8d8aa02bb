import vm from 'node:vm';
import { Engine } from 'php-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskApiKey } from '@aim/shared-kit/format';
import {
  buildSample,
  GENERATE_ENDPOINTS,
  LANGUAGES,
  parseEndpoint,
  parseLanguage,
  parseRequestType,
  requestBody,
  SAMPLE_PROMPT,
  SONG_PROMPT,
  TASK_ID_PLACEHOLDER,
  VIDEO_PROMPT,
  type EndpointId,
  type Language,
} from '../src/features/api-keys/sample-code.ts';
import { run, RUNNERS, startRecorder, type Recorder } from './support/sample-runner.ts';

const KEY = '3f1c9a7e5b2d4c6e8a0b1d3f5e7a9c2b';
const BASE = 'https://api.example.com';

type Json = string | number | boolean;
type Expected = {
  path: string;
  body: Record<string, Json>;
  /** What the purpose comment names: the /fetch field(s) of the result (Fetch: the terminal statuses). */
  result: string[];
};

/** What each sample must send: the server's v1 routes and a minimal body its schema accepts (spec §2 API Keys). */
const GENERATE: Record<EndpointId, Expected> = {
  midjourney: { path: '/imagine', body: { prompt: SAMPLE_PROMPT, aspect_ratio: '1:1' }, result: ['image_urls'] },
  flux: { path: '/flux-imagine', body: { model: 'flux-schnell', prompt: SAMPLE_PROMPT, width: 1024, height: 1024 }, result: ['image_url'] },
  ideogram: { path: '/ideogram-imagine', body: { prompt: SAMPLE_PROMPT, aspect_ratio: 'ASPECT_1_1' }, result: ['image_urls'] },
  luma: { path: '/luma-imagine', body: { prompt: VIDEO_PROMPT, aspect_ratio: '16:9' }, result: ['video_url'] },
  kling: {
    path: '/kling-imagine',
    body: { prompt: VIDEO_PROMPT, generation_type: 'text2video', duration: 5, aspect_ratio: '16:9' },
    result: ['video_url'],
  },
  runway: {
    path: '/runway-imagine',
    body: { prompt: VIDEO_PROMPT, generation_type: 'text2video', duration: 5, aspect_ratio: '16:9' },
    result: ['video_url'],
  },
  suno: { path: '/suno-imagine', body: { prompt: SONG_PROMPT, make_instrumental: false }, result: ['songs', 'audio_url'] },
  udio: { path: '/udio-imagine', body: { prompt: SONG_PROMPT }, result: ['songs', 'audio_url'] },
  faceswap: {
    path: '/faceswap',
    body: { swap_image_url: 'https://example.com/face.jpg', target_image_url: 'https://example.com/photo.jpg' },
    result: ['image_url'],
  },
};
const FETCH: Expected = { path: '/fetch', body: { task_id: TASK_ID_PLACEHOLDER }, result: ['finished', 'failed'] };

/** Every sample the card can show: Fetch, and Generate on each endpoint. */
type Sample = { name: string; requestType: 'generate' | 'fetch'; endpoint?: EndpointId; expected: Expected };
const SAMPLES: Sample[] = [
  ...GENERATE_ENDPOINTS.map((e): Sample => ({ name: `generate ${e.id}`, requestType: 'generate', endpoint: e.id, expected: GENERATE[e.id] })),
  { name: 'fetch', requestType: 'fetch', expected: FETCH },
];
const CASES = LANGUAGES.flatMap((l) => SAMPLES.map((s) => [l.id, s.name, s] as [Language, string, Sample]));

const sampleOf = (language: Language, s: Sample, baseUrl: string, apiKey = KEY) =>
  buildSample({ language, requestType: s.requestType, endpoint: s.endpoint, baseUrl, apiKey });

const php = new Engine({ parser: { php7: true, suppressErrors: false }, ast: { withPositions: false } });
type PhpNode = Record<string, unknown> & { kind?: string };

/** Every node of a PHP program, in source order. */
function phpNodes(code: string): PhpNode[] {
  const out: PhpNode[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const n = node as PhpNode;
    if (n.kind) out.push(n);
    for (const value of Object.values(n)) walk(value);
  };
  walk(php.parseCode(code, 'sample.php'));
  return out;
}

/** Every string literal of a PHP program, in source order. */
const phpStrings = (code: string) => phpNodes(code).flatMap((n) => (n.kind === 'string' ? [n.value as string] : []));

/** The value PHP would give the literal array handed to json_encode: the body the sample sends. */
function phpBody(code: string): Record<string, Json> {
  const call = phpNodes(code).find((n) => n.kind === 'call' && (n.what as PhpNode).name === 'json_encode')!;
  const literal = (node: PhpNode): Json => {
    if (node.kind === 'string' || node.kind === 'boolean') return node.value as string | boolean;
    if (node.kind === 'number') return Number(node.value);
    throw new Error(`not a literal: ${node.kind}`);
  };
  const items = ((call.arguments as PhpNode[])[0]!.items as PhpNode[]).map((entry) => [literal(entry.key as PhpNode), literal(entry.value as PhpNode)]);
  return Object.fromEntries(items);
}

/** How each language writes one entry of the body: strings quoted, numbers as is, booleans in its own spelling. */
function entryLiteral(language: Language, key: string, value: Json): string {
  const json = JSON.stringify(value);
  if (language === 'curl') return `${JSON.stringify(key)}:${json}`;
  if (language === 'python') return `"${key}": ${typeof value === 'boolean' ? (value ? 'True' : 'False') : json}`;
  const literal = typeof value === 'string' ? `'${value}'` : json;
  return language === 'php' ? `'${key}' => ${literal}` : `${key}: ${literal}`;
}

/** Fails with the tool's own message when the code does not parse. */
async function checkSyntax(language: Language, code: string): Promise<void> {
  if (language === 'nodejs') {
    // Strict, as in the ES module `node sample.mjs` runs (the sample has no import/export).
    expect(() => new vm.Script(`'use strict';\n${code}`)).not.toThrow();
  } else if (language === 'python') {
    const res = await run('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], code);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
  } else if (language === 'php') {
    expect(() => php.parseCode(code, 'sample.php')).not.toThrow();
  } else {
    const res = await run('bash', ['-n', '-c', code]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
  }
}

describe('the sample of each language, request type and endpoint', () => {
  it('the endpoints are the nine media families, Midjourney first', () => {
    expect(GENERATE_ENDPOINTS.map((e) => e.id)).toEqual(Object.keys(GENERATE));
    expect(GENERATE_ENDPOINTS.map((e) => e.path)).toEqual(Object.values(GENERATE).map((g) => g.path));
  });

  it.each(CASES)('%s / %s names the URL, POST, the Authorization header and the JSON body, and parses', async (language, _, sample) => {
    const code = sampleOf(language, sample, `${BASE}/`);
    const { path, body, result } = sample.expected;
    expect(code).toContain(BASE + path);
    // The one URL of the sample is this endpoint's (no other family's path, no double slash).
    expect(code.match(/https:\/\/api\.example\.com[^'"\s]*/g)).toEqual([BASE + path]);
    expect(code).toContain('POST');
    expect(code).toContain(KEY);
    expect(code).toMatch(/Authorization/);
    expect(code).toMatch(/Content-Type[^\n]*application\/json/);
    for (const [k, v] of Object.entries(body)) expect(code).toContain(entryLiteral(language, k, v));
    if (language !== 'curl') {
      // The purpose comment: what the call starts or reads, the task_id, and where /fetch puts the result.
      expect(code).toContain('task_id');
      for (const word of result) expect(code).toContain(word);
    }
    await checkSyntax(language, code);
  });

  it.each(SAMPLES.map((s) => [s.name, s] as const))('php / %s: the curl call carries the URL, the key, the headers and the body', (_, sample) => {
    const code = sampleOf('php', sample, BASE);
    expect(phpStrings(code).slice(0, 4)).toEqual([KEY, BASE + sample.expected.path, 'Authorization: ', 'Content-Type: application/json']);
    expect(phpBody(code)).toStrictEqual(sample.expected.body);
  });

  it('the PHP body reader tells a number and a boolean from their text (the check can fail)', () => {
    expect(phpBody("<?php json_encode(['a' => 5, 'b' => false]);")).toStrictEqual({ a: 5, b: false });
    expect(phpBody("<?php json_encode(['a' => '5', 'b' => 'false']);")).not.toStrictEqual({ a: 5, b: false });
  });

  it('a sample that does not parse is caught (the checks can fail)', async () => {
    await expect(checkSyntax('python', 'print("x"')).rejects.toThrow();
    await expect(checkSyntax('curl', "curl -d '{")).rejects.toThrow();
    await expect(checkSyntax('php', '<?php $a = ;')).rejects.toThrow();
    await expect(checkSyntax('nodejs', 'const = 1;')).rejects.toThrow();
  });

  it('without an endpoint, Generate is Midjourney /imagine; Fetch is the same whatever the endpoint', () => {
    for (const language of LANGUAGES.map((l) => l.id)) {
      expect(buildSample({ language, requestType: 'generate', baseUrl: BASE, apiKey: KEY })).toBe(
        buildSample({ language, requestType: 'generate', endpoint: 'midjourney', baseUrl: BASE, apiKey: KEY }),
      );
      expect(buildSample({ language, requestType: 'fetch', endpoint: 'suno', baseUrl: BASE, apiKey: KEY })).toBe(
        buildSample({ language, requestType: 'fetch', baseUrl: BASE, apiKey: KEY }),
      );
    }
  });

  it('the faceswap sample tells the reader to put their own image URLs, e.g. from POST /upload', () => {
    const code = buildSample({ language: 'nodejs', requestType: 'generate', endpoint: 'faceswap', baseUrl: BASE, apiKey: KEY });
    expect(code).toMatch(/^\/\/ .*Replace both URLs by your own images.*POST \/upload/m);
  });

  it('video and song samples describe a video and a song, not the picture', () => {
    expect(new Set([SAMPLE_PROMPT, VIDEO_PROMPT, SONG_PROMPT]).size).toBe(3);
    expect(VIDEO_PROMPT).toMatch(/camera/);
    expect(SONG_PROMPT).toMatch(/song/);
  });
});

describe('running the samples against a loopback API', () => {
  let api: Recorder;
  beforeAll(async () => {
    api = await startRecorder();
  });
  afterAll(() => api.close());

  const runnable = CASES.filter(([language]) => language !== 'php') as ['nodejs' | 'python' | 'curl', string, Sample][];

  it.each(runnable)('%s / %s sends POST with the key and the JSON body, and prints the answer', async (language, _, sample) => {
    const before = api.requests.length;
    const res = await RUNNERS[language](sampleOf(language, sample, api.baseUrl));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('task-1');
    expect(api.requests).toHaveLength(before + 1);
    const req = api.requests.at(-1)!;
    expect(req).toMatchObject({ method: 'POST', path: sample.expected.path });
    expect(req.headers.authorization).toBe(KEY);
    expect(req.headers['content-type']).toBe('application/json');
    // Strict: 1024 is not "1024", false is not "false".
    expect(JSON.parse(req.body)).toStrictEqual(sample.expected.body);
  });

  it('the recorder refuses a path the API does not have (a wrong path cannot pass)', async () => {
    const res = await RUNNERS.nodejs(sampleOf('nodejs', SAMPLES[0]!, `${api.baseUrl}/pro`));
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Not found');
  });

  // Real keys are hex; quoting still has to hold for anything the page is given.
  const awkwardKey = `k'"\\$HOME\`x\``;
  it.each(['nodejs', 'python', 'curl'] as const)('%s keeps a key with quotes, backslashes and $ intact', async (language) => {
    const res = await RUNNERS[language](buildSample({ language, requestType: 'generate', baseUrl: api.baseUrl, apiKey: awkwardKey }));
    expect(res.code, res.stderr).toBe(0);
    expect(api.requests.at(-1)!.headers.authorization).toBe(awkwardKey);
  });

  it('php keeps such a key intact as well', () => {
    expect(phpStrings(buildSample({ language: 'php', requestType: 'generate', baseUrl: api.baseUrl, apiKey: awkwardKey }))[0]).toBe(awkwardKey);
  });
});

describe('the displayed sample', () => {
  it.each(LANGUAGES.map((l) => l.id))('%s shows the masked key and never the real one', (language) => {
    const shown = buildSample({ language, requestType: 'generate', baseUrl: BASE, apiKey: maskApiKey(KEY) });
    expect(shown).toContain(`${KEY.slice(0, 4)}${'•'.repeat(KEY.length - 8)}${KEY.slice(-4)}`);
    expect(shown).not.toContain(KEY);
  });
});

describe('the query parameters', () => {
  it.each([
    [null, 'nodejs'],
    ['', 'nodejs'],
    ['nodejs', 'nodejs'],
    ['python', 'python'],
    ['php', 'php'],
    ['curl', 'curl'],
    ['Python', 'python'],
    ['CURL', 'curl'],
    ['ruby', 'nodejs'],
  ])('language=%s -> %s', (value, expected) => {
    expect(parseLanguage(value)).toBe(expected);
  });

  it.each([
    [null, ''],
    ['', ''],
    ['generate', 'generate'],
    ['fetch', 'fetch'],
    ['Fetch', 'fetch'],
    ['upscale', ''],
  ])('requestType=%s -> %s', (value, expected) => {
    expect(parseRequestType(value)).toBe(expected);
  });

  it.each<[string | null, string]>([
    [null, 'midjourney'],
    ['', 'midjourney'],
    ...Object.keys(GENERATE).map((id): [string, string] => [id, id]),
    ['Suno', 'suno'],
    ['FLUX', 'flux'],
    ['imagine', 'midjourney'],
    ['/faceswap', 'midjourney'],
    ['dalle', 'midjourney'],
  ])('endpoint=%s -> %s', (value, expected) => {
    expect(parseEndpoint(value)).toBe(expected);
  });

  it('the request bodies are the ones the API documents', () => {
    expect(requestBody('generate')).toStrictEqual(GENERATE.midjourney.body);
    for (const [id, { body }] of Object.entries(GENERATE)) expect(requestBody('generate', id as EndpointId)).toStrictEqual(body);
    expect(requestBody('fetch')).toStrictEqual({ task_id: TASK_ID_PLACEHOLDER });
    expect(requestBody('fetch', 'kling')).toStrictEqual({ task_id: TASK_ID_PLACEHOLDER });
  });
});
