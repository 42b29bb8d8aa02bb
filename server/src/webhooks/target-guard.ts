/**
 * @module The SSRF guard: a webhook URL is chosen by the customer, so without it they could
 * make our servers POST into our own network (cloud metadata, databases, admin ports).
 * A target is refused when its host is, or resolves to, any address in a blocked range.
 * The check runs inside the socket's DNS lookup (`guardedLookup`), so the address that is
 * checked is the address that is connected to: a DNS answer that changes between a check
 * and the connect (rebinding) cannot slip through. IPv6 addresses that carry an IPv4 address
 * for a translator or a tunnel (NAT64, 6to4, Teredo) reach that IPv4 address, so the IPv4
 * rules apply to the address they carry.
 */
import dns from 'node:dns';
import net from 'node:net';

const BLOCKED: [label: string, cidr: string][] = [
  ['unspecified', '0.0.0.0/8'],
  ['private', '10.0.0.0/8'],
  ['carrier-grade NAT', '100.64.0.0/10'],
  ['loopback', '127.0.0.0/8'],
  ['link-local', '169.254.0.0/16'],
  ['private', '172.16.0.0/12'],
  ['reserved', '192.0.0.0/24'],
  ['private', '192.168.0.0/16'],
  ['reserved', '198.18.0.0/15'],
  ['multicast', '224.0.0.0/4'],
  ['reserved', '240.0.0.0/4'],
  ['unspecified', '::/128'],
  ['loopback', '::1/128'],
  ['unique-local', 'fc00::/7'],
  ['link-local', 'fe80::/10'],
  ['site-local', 'fec0::/10'],
  ['multicast', 'ff00::/8'],
  // RFC 8215's local-use NAT64 prefix may be cut into any prefix of 48 to 96 bits, each with
  // the IPv4 address in other bytes (RFC 6052 §2.2): what an address leads to cannot be told
  // from outside that network, and IANA lists the range as not globally reachable.
  ['local-use NAT64', '64:ff9b:1::/48'],
];

// One BlockList per label so a refusal can say why. BlockList also matches IPv4-mapped
// IPv6 addresses (::ffff:127.0.0.1) against the IPv4 ranges.
const lists = new Map<string, net.BlockList>();
for (const [label, cidr] of BLOCKED) {
  const [address, prefix] = cidr.split('/');
  const list = lists.get(label) ?? new net.BlockList();
  list.addSubnet(address, Number(prefix), net.isIPv6(address) ? 'ipv6' : 'ipv4');
  lists.set(label, list);
}

/** The 16 bytes of an IPv6 address (zone id dropped; a trailing dotted IPv4 part allowed). */
function ipv6Bytes(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(tail);
  const words = tail === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

const ipv4At = (bytes: number[], at: number[]) => at.map((i) => bytes[i]).join('.');
const startsWith = (bytes: number[], prefix: number[]) => prefix.every((b, i) => bytes[i] === b);

/** The IPv4 addresses an IPv6 address leads to through a translator or tunnel, with its name. */
function embeddedIpv4(address: string): { scheme: string; ipv4: string[] } | undefined {
  const bytes = ipv6Bytes(address);
  // Well-known NAT64 prefix 64:ff9b::/96 (RFC 6052): the last 32 bits.
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return { scheme: 'NAT64', ipv4: [ipv4At(bytes, [12, 13, 14, 15])] };
  // 6to4 2002::/16 (RFC 3056): 2002:AABB:CCDD::/48 is the site behind IPv4 AA.BB.CC.DD.
  if (startsWith(bytes, [0x20, 0x02])) return { scheme: '6to4', ipv4: [ipv4At(bytes, [2, 3, 4, 5])] };
  // Teredo 2001::/32 (RFC 4380): the server's IPv4 in bytes 4–7, the client's (the relay sends
  // there) in bytes 12–15 with every bit inverted.
  if (startsWith(bytes, [0x20, 0x01, 0x00, 0x00])) {
    const client = bytes.map((b) => b ^ 0xff);
    return { scheme: 'Teredo', ipv4: [ipv4At(bytes, [4, 5, 6, 7]), ipv4At(client, [12, 13, 14, 15])] };
  }
  return undefined;
}

/** Why an IP address may not be a webhook target (e.g. 'loopback'), or undefined when it may. */
export function blockedAddressReason(address: string): string | undefined {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  const type = family === 6 ? 'ipv6' : 'ipv4';
  for (const [label, list] of lists) {
    if (list.check(address, type)) return label;
  }
  const embedded = family === 6 ? embeddedIpv4(address) : undefined;
  for (const ipv4 of embedded?.ipv4 ?? []) {
    const reason = blockedAddressReason(ipv4);
    if (reason) return `${embedded?.scheme}-mapped ${reason}`;
  }
  return undefined;
}

/** Raised (from inside the lookup, or before connecting) when a target is refused. */
export class TargetRefusedError extends Error {
  readonly code = 'EWEBHOOKREFUSED';
}

type LookupAddress = { address: string; family: number };
/** Resolves a host name to all its addresses (dns.lookup with all: true by default). */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

export const resolveWithDns: ResolveHost = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Refuses an IP literal host (the socket does not call lookup for those). */
export function checkLiteralHost(host: string): void {
  if (net.isIP(host) === 0) return;
  const reason = blockedAddressReason(host);
  if (reason) throw new TargetRefusedError(`${host} is a ${reason} address`);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request / net.connect that resolves with `resolve` and refuses the
 * host when any of its addresses is blocked (every address, since the socket may try any).
 */
export function guardedLookup(resolve: ResolveHost) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    resolve(hostname).then(
      (all) => {
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (wanted.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = 'ENOTFOUND';
          return callback(err, '');
        }
        for (const { address } of all) {
          const reason = blockedAddressReason(address);
          if (reason) return callback(new TargetRefusedError(`${hostname} resolves to ${address}, a ${reason} address`), '');
        }
        if (options.all) return callback(null, wanted);
        callback(null, wanted[0].address, wanted[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
