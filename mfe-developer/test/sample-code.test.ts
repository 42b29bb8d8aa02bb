import vm from 'node:vm';
import { Engine } from 'php-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskApiKey } from '@aim/shared-kit/format';
import {
  buildSample,
  LANGUAGES,
  parseLanguage,
  parseRequestType,
  REQUEST_TYPES,
  requestBody,
  SAMPLE_PROMPT,
  TASK_ID_PLACEHOLDER,
  type Language,
  type RequestType,
} from '../src/features/api-keys/sample-code.ts';
import { run, RUNNERS, startRecorder, type Recorder } from './support/sample-runner.ts';

const KEY = '3f1c9a7e5b2d4c6e8a0b1d3f5e7a9c2b';
const BASE = 'https://api.example.com';
const PATHS: Record<RequestType, string> = { generate: '/pro/imagine', fetch: '/fetch' };
const BODIES: Record<RequestType, Record<string, string>> = { generate: { prompt: SAMPLE_PROMPT }, fetch: { task_id: TASK_ID_PLACEHOLDER } };

const CASES = LANGUAGES.flatMap((l) => REQUEST_TYPES.map((r) => [l.id, r.id] as [Language, RequestType]));
const php = new Engine({ parser: { php7: true, suppressErrors: false }, ast: { withPositions: false } });

/** Every string literal of a PHP program, in source order. */
function phpStrings(code: string): string[] {
  const out: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    if (n.kind === 'string') out.push(n.value as string);
    for (const value of Object.values(n)) walk(value);
  };
  walk(php.parseCode(code, 'sample.php'));
  return out;
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

describe('the sample of each language and request type', () => {
  it.each(CASES)('%s / %s names the URL, POST, the Authorization header and the JSON body, and parses', async (language, type) => {
    const code = buildSample({ language, requestType: type, baseUrl: `${BASE}/`, apiKey: KEY });
    const url = BASE + PATHS[type];
    expect(code).toContain(url);
    expect(code).not.toContain(`${BASE}//`);
    expect(code).toContain('POST');
    expect(code).toContain(KEY);
    expect(code).toMatch(/Authorization/);
    expect(code).toMatch(/Content-Type[^\n]*application\/json/);
    for (const [k, v] of Object.entries(BODIES[type])) {
      expect(code).toContain(k);
      expect(code).toContain(v);
    }
    expect(code).not.toContain(BASE + PATHS[type === 'generate' ? 'fetch' : 'generate']);
    await checkSyntax(language, code);
  });

  it.each(REQUEST_TYPES.map((r) => r.id))('php / %s: the curl call carries the URL, the key, the headers and the body', (type) => {
    const strings = phpStrings(buildSample({ language: 'php', requestType: type, baseUrl: BASE, apiKey: KEY }));
    expect(strings).toEqual([KEY, BASE + PATHS[type], 'Authorization: ', 'Content-Type: application/json', ...Object.entries(BODIES[type]).flat()]);
  });

  it('a sample that does not parse is caught (the checks can fail)', async () => {
    await expect(checkSyntax('python', 'print("x"')).rejects.toThrow();
    await expect(checkSyntax('curl', "curl -d '{")).rejects.toThrow();
    await expect(checkSyntax('php', '<?php $a = ;')).rejects.toThrow();
    await expect(checkSyntax('nodejs', 'const = 1;')).rejects.toThrow();
  });
});

describe('running the samples against a loopback API', () => {
  let api: Recorder;
  beforeAll(async () => {
    api = await startRecorder();
  });
  afterAll(() => api.close());

  const runnable = CASES.filter(([language]) => language !== 'php') as ['nodejs' | 'python' | 'curl', RequestType][];

  it.each(runnable)('%s / %s sends POST with the key and the JSON body, and prints the answer', async (language, type) => {
    const before = api.requests.length;
    const res = await RUNNERS[language](buildSample({ language, requestType: type, baseUrl: api.baseUrl, apiKey: KEY }));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('task-1');
    expect(api.requests).toHaveLength(before + 1);
    const req = api.requests.at(-1)!;
    expect(req).toMatchObject({ method: 'POST', path: PATHS[type] });
    expect(req.headers.authorization).toBe(KEY);
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual(BODIES[type]);
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

  it('the request bodies are the ones the API documents', () => {
    expect(requestBody('generate')).toEqual({ prompt: SAMPLE_PROMPT });
    expect(requestBody('fetch')).toEqual({ task_id: TASK_ID_PLACEHOLDER });
  });
});
