import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, chmodSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import net from 'node:net';

/**
 * Starts a throw-away PostgreSQL (Debian's package) on loopback: initdb in a temporary
 * folder, a free port, trust auth for the `postgres` superuser. Used by the test suites'
 * global setup for the "real PostgreSQL" leg. PostgreSQL refuses to run as root, so under
 * root it runs as the `postgres` system user (created by the Debian package).
 */
export interface RunningPostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
  /**
   * Stops the server fast (clients see 57P01) and starts it again on the same port and data;
   * `whileDown` runs in between (to look at clients while the server is away).
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
}

export function findPgBin(): string | undefined {
  if (process.env.PG_BIN && existsSync(path.join(process.env.PG_BIN, 'initdb'))) return process.env.PG_BIN;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).filter((v) => existsSync(path.join(base, v, 'bin', 'initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(base, versions[0], 'bin') : undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export async function startPostgres(): Promise<RunningPostgres> {
  const bin = findPgBin();
  if (!bin) {
    throw new Error('PostgreSQL server binaries not found (apt-get install postgresql, or set PG_BIN); set TEST_DATABASES=pglite to run only the embedded leg');
  }
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'aim-pg-'));
  const data = path.join(dir, 'data');
  chmodSync(dir, 0o777);
  const run = (cmd: string, args: string[]) =>
    asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { stdio: 'pipe' }) : execFileSync(cmd, args, { stdio: 'pipe' });
  run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  writeFileSync(path.join(dir, 'note.txt'), 'test cluster, deleted on stop\n');
  const port = await freePort();
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-h',
    '127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=200',
  ];
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const postgres = path.join(bin, 'postgres');
  let log = '';
  let child = launch();
  await ready(child);

  function launch() {
    const c = asRoot
      ? spawn('runuser', ['-u', 'postgres', '--', postgres, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(postgres, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    log = '';
    c.stderr?.on('data', (d) => (log += d));
    return c;
  }
  async function ready(c: typeof child) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (c.exitCode !== null) throw new Error(`postgres exited: ${log}`);
      const ok = await new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => {
          s.end();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      });
      if (ok && /ready to accept connections/.test(log)) break;
      if (Date.now() > deadline) throw new Error(`postgres did not start: ${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  async function halt() {
    // Signal the postmaster itself: under root the child is `runuser`, which does not
    // forward signals. SIGINT = PostgreSQL's fast shutdown.
    const exited = new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    let pid: number | undefined;
    try {
      pid = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      pid = child.pid;
    }
    try {
      if (pid) process.kill(pid, 'SIGINT');
    } catch {
      // already gone
    }
    const timer = setTimeout(() => {
      try {
        if (pid) process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
      child.kill('SIGKILL');
    }, 10_000);
    await exited;
    clearTimeout(timer);
  }
  return {
    url,
    port,
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
    async restart(whileDown) {
      await halt();
      await whileDown?.();
      child = launch();
      await ready(child);
    },
  };
}
