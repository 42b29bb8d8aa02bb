import { describe, expect, it } from 'vitest';
import { blockedAddressReason, checkLiteralHost, guardedLookup, TargetRefusedError } from '../src/webhooks/target-guard.ts';

// IPv6 addresses that lead to an IPv4 address through a translator or a tunnel are judged by
// the IPv4 address they carry (the plain ranges are tested in webhooks-signature.test.ts).
describe('webhook targets behind NAT64, 6to4 and Teredo', () => {
  it.each([
    // NAT64, well-known prefix 64:ff9b::/96: the last 32 bits
    ['64:ff9b::7f00:1', 'NAT64-mapped loopback'],
    ['64:ff9b::127.0.0.1', 'NAT64-mapped loopback'],
    ['64:ff9b::a00:1', 'NAT64-mapped private'],
    ['64:ff9b::192.168.1.1', 'NAT64-mapped private'],
    ['64:ff9b::ac10:1', 'NAT64-mapped private'],
    ['64:ff9b::a9fe:a9fe', 'NAT64-mapped link-local'],
    ['64:ff9b::6440:1', 'NAT64-mapped carrier-grade NAT'],
    ['64:ff9b::', 'NAT64-mapped unspecified'],
    // NAT64, local-use prefix 64:ff9b:1::/48: where the IPv4 sits depends on the network
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['64:ff9b:1:a00:0:100::', 'local-use NAT64'],
    ['64:ff9b:1:ffff::808:808', 'local-use NAT64'],
    // 6to4 2002::/16: bits 16–47
    ['2002:7f00:1::', '6to4-mapped loopback'],
    ['2002:a00:1::1', '6to4-mapped private'],
    ['2002:c0a8:101:1::1', '6to4-mapped private'],
    ['2002:a9fe:a9fe::', '6to4-mapped link-local'],
    // Teredo 2001::/32: the server (bits 32–63) and the client (last 32 bits, inverted)
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo-mapped private'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo-mapped loopback'],
    ['2001:0:c0a8:101:8000:63bf:f7f7:f7f7', 'Teredo-mapped private'],
    // zone ids and upper case do not hide anything
    ['64:FF9B::7F00:1', 'NAT64-mapped loopback'],
    ['2002:a00:1::1%eth0', '6to4-mapped private'],
  ])('%s is refused (%s)', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each([
    '64:ff9b::808:808', // NAT64 of 8.8.8.8
    '64:ff9b::93.184.216.34',
    '64:ff9b:0:0:1::a00:1', // not the /96 form (bits 32–95 not zero): not the well-known NAT64 prefix
    '64:ff9b:2::a00:1', // outside the local-use /48
    '2002:808:808::1', // 6to4 of 8.8.8.8
    '2002:5db8:d822:a00:1::1', // a public site's own subnets and hosts are not IPv4 addresses
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo: public server, client 8.8.8.8
    '2001:4860:4860::8888', // 2001::/23 but not Teredo (2001::/32)
    '2001:db8::a00:1',
    '2003:a00:1::1',
    '2606:4700::1111',
  ])('%s is allowed', (address) => {
    expect(blockedAddressReason(address)).toBeUndefined();
  });

  it('refuses such literals in a URL and such DNS answers', async () => {
    expect(() => checkLiteralHost('64:ff9b::a9fe:a9fe')).toThrow(new TargetRefusedError('64:ff9b::a9fe:a9fe is a NAT64-mapped link-local address'));
    const lookup = guardedLookup(async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '2002:a00:1::1', family: 6 },
    ]);
    const err = await new Promise<Error | null>((resolve) => lookup('hooks.example.com', { all: true }, (e) => resolve(e)));
    expect(err).toBeInstanceOf(TargetRefusedError);
    expect(err?.message).toBe('hooks.example.com resolves to 2002:a00:1::1, a 6to4-mapped private address');
  });
});
