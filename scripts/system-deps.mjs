// The Debian packages the test suites need beyond Node: Chromium (the journeys and the shell's
// browser tests), PostgreSQL (the database suites' second leg), curl and python3 (the API Keys
// samples run for real), php-cli (docs/webhooks/verify.php runs for real). `npm test` checks them
// first: it installs what is missing when it can (as root, or with passwordless sudo) and
// otherwise stops at once with the exact command to run, before minutes go into other suites.
// The decision is a pure function, tested in scripts/system-deps.test.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

/** Each package and how its presence is recognised. */
const SYSTEM_PACKAGES = [
  { name: 'chromium', present: () => existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') },
  { name: 'postgresql', present: hasInitdb },
  { name: 'curl', present: () => onPath('curl') },
  { name: 'python3', present: () => onPath('python3') },
  { name: 'php-cli', present: () => onPath('php') },
];

function hasInitdb() {
  const dir = '/usr/lib/postgresql';
  if (!existsSync(dir)) return false;
  return readdirSync(dir).some((version) => existsSync(`${dir}/${version}/bin/initdb`));
}

function succeeds(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  return !r.error && r.status === 0;
}

function onPath(cmd) {
  return succeeds('sh', ['-c', `command -v ${cmd}`]);
}

/** What this machine has: the input of the plan. */
function probeMachine() {
  return {
    missing: SYSTEM_PACKAGES.filter((p) => !p.present()).map((p) => p.name),
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    // -n: never prompt; fails at once when a password would be needed
    sudoWithoutPassword: onPath('sudo') && succeeds('sudo', ['-n', 'true']),
    hasAptGet: onPath('apt-get'),
  };
}

const APT_INSTALL = ['apt-get', 'install', '-y', '-qq', '--no-install-recommends'];

/** The command a person runs to install `missing` (shown when the suite cannot do it itself). */
export function manualCommand(missing, { isRoot = false } = {}) {
  const sudo = isRoot ? '' : 'sudo ';
  return `${sudo}apt-get update && ${sudo}apt-get install -y --no-install-recommends ${missing.join(' ')}`;
}

/**
 * What to do about the missing packages:
 * - `ready`: nothing is missing;
 * - `install`: the commands to run (as root directly, else through `sudo -n`), in order;
 * - `stop`: a message with the exact command for a person to run.
 */
export function planSystemPackages({ missing, isRoot, sudoWithoutPassword, hasAptGet }) {
  if (missing.length === 0) return { kind: 'ready' };
  const list = missing.join(', ');
  if (!hasAptGet) {
    return {
      kind: 'stop',
      message: `npm test needs ${list}, which this machine lacks, and it has no apt-get to install them. Install ${list} with the machine's package manager (Chromium at /usr/bin/chromium or set CHROMIUM_PATH; PostgreSQL's initdb under /usr/lib/postgresql/<version>/bin), then run npm test again.`,
    };
  }
  if (!isRoot && !sudoWithoutPassword) {
    return {
      kind: 'stop',
      message: `npm test needs ${list}, which this machine lacks, and cannot install them without a password. Run:\n\n  ${manualCommand(missing)}\n\nthen run npm test again.`,
    };
  }
  const prefix = isRoot ? [] : ['sudo', '-n'];
  return {
    kind: 'install',
    commands: [
      [...prefix, 'apt-get', 'update', '-qq'],
      [...prefix, ...APT_INSTALL, ...missing],
    ],
  };
}

/**
 * Checks the machine, installs what is missing when it can, and answers true when everything is
 * there; otherwise prints what to run and answers false.
 */
export function ensureSystemPackages({ log = console.log, error = console.error } = {}) {
  const machine = probeMachine();
  const plan = planSystemPackages(machine);
  if (plan.kind === 'ready') return true;
  if (plan.kind === 'stop') {
    error(`[setup] ${plan.message}`);
    return false;
  }
  log(`[setup] installing the Debian packages the tests need: ${machine.missing.join(' ')}`);
  for (const [cmd, ...args] of plan.commands) {
    const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.error || r.status !== 0) {
      error(`[setup] '${[cmd, ...args].join(' ')}' failed. Run:\n\n  ${manualCommand(machine.missing, machine)}\n\nthen run npm test again.`);
      return false;
    }
  }
  const still = SYSTEM_PACKAGES.filter((p) => !p.present()).map((p) => p.name);
  if (still.length) {
    error(`[setup] still missing after the install: ${still.join(', ')}. Run:\n\n  ${manualCommand(still, machine)}\n\nthen run npm test again.`);
    return false;
  }
  return true;
}
