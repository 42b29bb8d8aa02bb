// Runs the generated samples for real: a loopback HTTP server that records what arrives, and the
// language's own interpreter (node, python3, bash + curl) fed the sample on stdin.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type Recorded = { method: string; path: string; headers: Record<string, string | string[] | undefined>; body: string };

export type Recorder = { baseUrl: string; requests: Recorded[]; close(): Promise<void> };

/** The APIFRAME v1 submissions the samples make; each answers `{ task_id }` as the provider API does. */
const SUBMIT_PATHS = new Set([
  '/imagine',
  '/flux-imagine',
  '/ideogram-imagine',
  '/luma-imagine',
  '/kling-imagine',
  '/runway-imagine',
  '/suno-imagine',
  '/udio-imagine',
  '/faceswap',
]);

/** Answers like the provider API does for the sample calls: POST /fetch, the submissions, 404 for any other path. */
export async function startRecorder(): Promise<Recorder> {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      requests.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const json = (status: number, answer: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      if (path === '/fetch') json(200, { task_id: 'task-1', task_type: 'imagine', status: 'finished', percentage: '100' });
      else if (SUBMIT_PATHS.has(path)) json(200, { task_id: 'task-1' });
      else json(404, { message: 'Not found', errors: [{ msg: 'Not found', code: 'not_found' }] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export type RunResult = { code: number | null; stdout: string; stderr: string };

// The children must reach the loopback server directly, whatever proxy the machine sets.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/_proxy$/i.test(k)));

/** Runs `command args` with `input` on stdin (async: the recorder lives in this process). */
export function run(command: string, args: string[], input = ''): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A child that exits without reading stdin (bash -c) must not fail the write.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

/** How each runnable sample language is executed. PHP has no interpreter here: it is parsed instead. */
export const RUNNERS = {
  // The sample's own comment says to save it as .mjs: run it as an ES module.
  nodejs: (code: string) => run(process.execPath, ['--input-type=module', '-'], code),
  python: (code: string) => run('python3', ['-'], code),
  curl: (code: string) => run('bash', ['-c', code]),
} as const;
