// The contract test every remote runs (mfe-*/test/contract.test.ts): its build, as its own
// rsbuild.config.ts declares it, against the shell's. A remote that passes can be built and
// shipped alone; the shell checks the same things again at run time on the built manifest
// (shell/src/mf/remote-check.ts), where it also compares the stamped shared-kit contract version.
//
// Node only (reads files): tests import it, no browser code does.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SHELL_MOUNTS } from '../src/contract.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Federation = { name: string; exposes: Record<string, string>; shared: Record<string, unknown> };

export type ContractInput = {
  remote: string;
  remoteFederation: Federation;
  shellFederation: Federation;
  /** Bare module specifiers the code behind the remote's exposes imports at run time. */
  remoteImports: string[];
  /** Bare module specifiers the shell's own code imports (what it can provide as shared). */
  shellImports: string[];
  /** Whether an expose's source file exists. */
  exposeExists: (file: string) => boolean;
};

const packageOf = (spec: string) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

/** Everything that breaks the remote in the shell, as sentences (empty: compatible). */
export function contractProblems(input: ContractInput): string[] {
  const { remote, remoteFederation: own, shellFederation: shell } = input;
  const problems: string[] = [];
  if (own.name !== remote) problems.push(`the federation name is ${own.name}, the runtime config calls it ${remote}`);
  for (const expose of SHELL_MOUNTS[remote] ?? []) {
    const file = own.exposes[expose];
    if (!file) problems.push(`it does not expose ${expose}, which the shell mounts`);
    else if (!input.exposeExists(file)) problems.push(`${expose} points at ${file}, which does not exist`);
  }
  const keys = new Set([...Object.keys(own.shared), ...Object.keys(shell.shared)]);
  for (const key of [...keys].sort()) {
    if (!(key in shell.shared)) problems.push(`it shares ${key}, the shell does not`);
    else if (!(key in own.shared)) problems.push(`the shell shares ${key}, it does not (it would bundle a private copy)`);
    else if (JSON.stringify(own.shared[key]) !== JSON.stringify(shell.shared[key]))
      problems.push(`${key} is shared as ${JSON.stringify(own.shared[key])}, the shell shares it as ${JSON.stringify(shell.shared[key])}`);
  }
  const sharedPackages = new Set(Object.keys(shell.shared).map((k) => packageOf(k.replace(/\/$/, ''))));
  const covered = (spec: string) => Object.keys(shell.shared).some((k) => k === spec || (k.endsWith('/') && spec.startsWith(k)));
  const provided = new Set(input.shellImports);
  for (const spec of [...new Set(input.remoteImports)].sort()) {
    if (!sharedPackages.has(packageOf(spec))) continue;
    if (!covered(spec)) problems.push(`it imports ${spec}, which no shared key covers (a private copy)`);
    else if (!provided.has(spec)) problems.push(`it imports ${spec}, which the shell does not provide (add it to shell/src/mf/provide-subpaths.ts)`);
  }
  return problems;
}

const IMPORT_PATTERNS = [/\bfrom\s+['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /\bimport\s+['"]([^'"]+)['"]/g];
// `import type ...` / `export type ... from` leave nothing behind at run time.
const TYPE_ONLY = /\b(?:import|export)\s+type\s+[^;]*?\bfrom\s+['"][^'"]+['"]/g;

function specifiers(file: string): string[] {
  const code = readFileSync(file, 'utf8').replace(TYPE_ONLY, '');
  return IMPORT_PATTERNS.flatMap((re) => [...code.matchAll(re)].map((m) => m[1]!));
}

function resolveLocal(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  return [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')].find((f) => existsSync(f) && !f.endsWith(path.sep));
}

/** Bare specifiers imported by the files reachable from `entries` through relative imports. */
function reachableImports(entries: string[]): string[] {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file) || !/\.(ts|tsx)$/.test(file)) continue;
    seen.add(file);
    for (const spec of specifiers(file)) {
      if (!spec.startsWith('.')) bare.add(spec);
      else {
        const next = resolveLocal(file, spec);
        if (next) queue.push(next);
      }
    }
  }
  return [...bare];
}

function allSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return allSources(full);
    return /\.(ts|tsx)$/.test(e.name) ? [full] : [];
  });
}

/** The options a config passed to pluginModuleFederation (the calling test mocks the plugin to keep them). */
function federationOf(config: { plugins?: unknown[] }, file: string): Federation {
  const plugin = (config.plugins ?? []).find((p): p is { options: Federation } => Boolean(p && typeof p === 'object' && 'options' in p));
  if (!plugin) throw new Error(`${file}: no pluginModuleFederation(...) among its plugins (is the plugin mocked in this test?)`);
  return { name: plugin.options.name, exposes: plugin.options.exposes ?? {}, shared: plugin.options.shared ?? {} };
}

async function loadConfig(folder: string): Promise<{ plugins?: unknown[] }> {
  const file = path.join(repoRoot, folder, 'rsbuild.config.ts');
  const mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { default: { plugins?: unknown[] } };
  return mod.default;
}

/**
 * Loads the remote's and the shell's rsbuild configs and source, for contractProblems. The test
 * must mock '@module-federation/rsbuild-plugin' as
 * `{ pluginModuleFederation: (options) => ({ name: 'aim:federation-options', options }) }`.
 */
export async function loadContractInput(remote: string, folder: string): Promise<ContractInput> {
  const remoteFederation = federationOf(await loadConfig(folder), folder);
  const shellFederation = federationOf(await loadConfig('shell'), 'shell');
  const remoteDir = path.join(repoRoot, folder);
  const exposeFiles = Object.values(remoteFederation.exposes).map((f) => path.resolve(remoteDir, f));
  return {
    remote,
    remoteFederation,
    shellFederation,
    remoteImports: reachableImports(exposeFiles.filter((f) => existsSync(f))),
    shellImports: [...new Set(allSources(path.join(repoRoot, 'shell', 'src')).flatMap(specifiers))].filter((s) => !s.startsWith('.')),
    exposeExists: (f) => existsSync(path.resolve(remoteDir, f)),
  };
}
