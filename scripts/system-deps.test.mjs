// The decision `npm test` makes about missing Debian packages (scripts/system-deps.mjs): what is
// missing → what is run, or what a person is told to run. Run by `npm test` (node --test).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manualCommand, planSystemPackages } from './system-deps.mjs';

const machine = (over) => ({ missing: [], isRoot: false, sudoWithoutPassword: false, hasAptGet: true, ...over });

describe('planSystemPackages', () => {
  it('does nothing when nothing is missing, whoever runs it', () => {
    assert.deepEqual(planSystemPackages(machine({})), { kind: 'ready' });
    assert.deepEqual(planSystemPackages(machine({ hasAptGet: false })), { kind: 'ready' });
  });

  it('installs as root with apt-get directly, the update first', () => {
    assert.deepEqual(planSystemPackages(machine({ missing: ['chromium', 'postgresql'], isRoot: true })), {
      kind: 'install',
      commands: [
        ['apt-get', 'update', '-qq'],
        ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'chromium', 'postgresql'],
      ],
    });
  });

  it('installs php-cli (the webhook sample server) like any other package', () => {
    assert.deepEqual(planSystemPackages(machine({ missing: ['php-cli'], isRoot: true })).commands.at(-1), [
      'apt-get',
      'install',
      '-y',
      '-qq',
      '--no-install-recommends',
      'php-cli',
    ]);
  });

  it('installs through sudo -n when sudo needs no password', () => {
    const plan = planSystemPackages(machine({ missing: ['curl'], sudoWithoutPassword: true }));
    assert.equal(plan.kind, 'install');
    assert.deepEqual(plan.commands, [
      ['sudo', '-n', 'apt-get', 'update', '-qq'],
      ['sudo', '-n', 'apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'curl'],
    ]);
  });

  it('stops with the exact command when it would need a password', () => {
    const plan = planSystemPackages(machine({ missing: ['chromium', 'python3'] }));
    assert.equal(plan.kind, 'stop');
    assert.match(plan.message, /needs chromium, python3/);
    assert.ok(plan.message.includes('sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium python3'), plan.message);
  });

  it('stops and names the packages when the machine has no apt-get, even as root', () => {
    const plan = planSystemPackages(machine({ missing: ['postgresql'], isRoot: true, hasAptGet: false }));
    assert.equal(plan.kind, 'stop');
    assert.match(plan.message, /no apt-get/);
    assert.match(plan.message, /postgresql/);
  });

  it('writes the manual command without sudo for root', () => {
    assert.equal(manualCommand(['curl'], { isRoot: true }), 'apt-get update && apt-get install -y --no-install-recommends curl');
    assert.equal(manualCommand(['curl']), 'sudo apt-get update && sudo apt-get install -y --no-install-recommends curl');
  });
});
