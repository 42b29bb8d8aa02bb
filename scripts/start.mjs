// `npm start`: install what is missing, build the front-ends, run the whole platform on
// embedded defaults (PGlite, local Supabase services, sandbox payments) and print the URLs.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ensureInstall, root, run } from './ensure-install.mjs';

ensureInstall();

const frontEnds = ['shell', 'mfe-tools', 'mfe-assets', 'mfe-billing', 'mfe-developer', 'mfe-onboarding'].filter((p) =>
  existsSync(path.join(root, p, 'package.json')),
);
if (process.env.SKIP_BUILD !== '1' && frontEnds.length) {
  console.log(`[build] ${frontEnds.join(', ')}`);
  const filters = frontEnds.flatMap((p) => ['--filter', `./${p}`]);
  if (run('pnpm', ['-r', ...filters, 'build']) !== 0) {
    console.error('[build] failed');
    process.exit(1);
  }
}

const child = spawn('pnpm', ['--filter', '@aim/server', 'start'], { cwd: root, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code) => process.exit(code ?? 0));
