/**
 * @module The client's address for the per-address rate limit: the socket's peer, or, behind
 * TRUST_PROXY proxies, the address the outermost of them saw (from X-Forwarded-For, read
 * from the right: a client can prepend anything, only the entries our proxies appended count).
 */
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

function socketAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address || undefined;
  } catch {
    // no Node server under the app (app.request in tests, or another runtime): no address
    return undefined;
  }
}

const normalise = (address: string) =>
  address
    .trim()
    .replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')
    .toLowerCase();

/** undefined when the app runs without a socket (in-process calls): then no per-address limit applies. */
export function clientAddress(c: Context, trustProxyHops: number): string | undefined {
  const peer = socketAddress(c);
  if (peer === undefined) return undefined;
  if (trustProxyHops <= 0) return normalise(peer);
  const forwarded = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // nearest first: the peer (our last proxy), then what each proxy appended, right to left
  const chain = [peer, ...forwarded.reverse()];
  return normalise(chain[Math.min(trustProxyHops, chain.length - 1)]);
}
