import { describe, expect, it } from 'vitest';
import { SHARED_KIT_CONTRACT, contractIncompatibility } from '@aim/shared-kit/contract';
import { checkManifest } from '../src/mf/remote-check.ts';

const URL_ = 'https://pr-7.preview.example.com/mfe-billing/mf-manifest.json';
const manifest = (name: string, aim: Record<string, string> | undefined, exposes: string[]) => ({
  id: name,
  name,
  metaData: { name, buildInfo: { buildVersion: '0.1.0', buildName: `@aim/${name}` }, ...(aim ? { aim } : {}) },
  exposes: exposes.map((path) => ({ id: `${name}:${path.slice(2)}`, name: path.slice(2), path })),
  shared: [],
});

describe('contractIncompatibility (semver: same major, minor no newer than the shell)', () => {
  it.each([
    ['1.0.0', '1.0.0', null],
    ['1.4.2', '1.0.0', null],
    ['1.4.2', '1.4.9', null],
    ['1.4.2', '1.5.0', /newer than the 1\.4\.2 this shell provides/],
    ['1.4.2', '2.0.0', /major versions differ/],
    ['2.0.0', '1.9.0', /major versions differ/],
    ['1.0.0', 'banana', /is not a version/],
    ['1.0.0', '1.0', /is not a version/],
  ])('shell %s, remote %s', (shell, remote, expected) => {
    const reason = contractIncompatibility(shell, remote);
    if (expected === null) expect(reason).toBeNull();
    else expect(reason).toMatch(expected);
  });

  it('the current contract is a MAJOR.MINOR.PATCH version compatible with itself', () => {
    expect(SHARED_KIT_CONTRACT).toMatch(/^\d+\.\d+\.\d+$/);
    expect(contractIncompatibility(SHARED_KIT_CONTRACT, SHARED_KIT_CONTRACT)).toBeNull();
  });
});

describe('checkManifest', () => {
  const stamp = { version: '0.3.0', commit: 'abc1234def56', contract: '1.0.0' };

  it('accepts a stamped remote with every expose the shell mounts, and reports its stamp', () => {
    const v = checkManifest('mfe_billing', URL_, manifest('mfe_billing', stamp, ['./App', './TopUpDialog']), '1.2.0');
    expect(v).toEqual({ remote: 'mfe_billing', url: URL_, version: '0.3.0', commit: 'abc1234def56', contract: '1.0.0', exposes: ['./App', './TopUpDialog'] });
  });

  it('accepts an unstamped manifest (plain rsbuild build), with the plugin build version', () => {
    const v = checkManifest('mfe_tools', URL_, manifest('mfe_tools', undefined, ['./App']));
    expect(v.refused).toBeUndefined();
    expect(v.version).toBe('0.1.0');
    expect(v.contract).toBeUndefined();
  });

  it('refuses a remote built against another major, naming the remote, its versions and the reason', () => {
    const v = checkManifest('mfe_billing', URL_, manifest('mfe_billing', { ...stamp, contract: '2.0.0' }, ['./App', './TopUpDialog']), '1.2.0');
    expect(v.refused).toBe(
      'mfe_billing 0.3.0 (commit abc1234def56): it was built against shared-kit contract 2.0.0, this shell provides 1.2.0 (major versions differ)',
    );
  });

  it('refuses a remote built against a newer minor than the shell provides', () => {
    const v = checkManifest('mfe_billing', URL_, manifest('mfe_billing', { ...stamp, contract: '1.3.0' }, ['./App', './TopUpDialog']), '1.2.0');
    expect(v.refused).toMatch(/built against shared-kit contract 1\.3\.0, newer than the 1\.2\.0/);
  });

  it('refuses a remote missing an expose the shell mounts', () => {
    const v = checkManifest('mfe_billing', URL_, manifest('mfe_billing', stamp, ['./App']), '1.0.0');
    expect(v.refused).toBe('mfe_billing 0.3.0 (commit abc1234def56) does not expose ./TopUpDialog, which this shell mounts');
  });

  it('refuses the manifest of another remote, and something that is not a manifest', () => {
    expect(checkManifest('mfe_tools', URL_, manifest('mfe_assets', stamp, ['./App'])).refused).toMatch(/manifest of mfe_assets, not of mfe_tools/);
    expect(checkManifest('mfe_tools', URL_, { hello: 'world' }).refused).toMatch(/is not a federation manifest/);
    expect(checkManifest('mfe_tools', URL_, null).refused).toMatch(/is not a federation manifest/);
  });
});
