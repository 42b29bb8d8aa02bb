/**
 * @module Which image URLs a user may ask us to read (faceswap's swap_image_url and
 * target_image_url): what the URL itself shows, checked when a task is submitted and again
 * on every redirect the image fetcher follows. Outside embedded mode only https, and no
 * host that is a private, loopback or otherwise internal address (the webhook guard's
 * ranges). A host name is judged later, on the address actually connected to
 * (webhooks/target-guard.ts), since only the connection can tell where a name leads.
 */
import net from 'node:net';
import { blockedAddressReason } from '../webhooks/target-guard.ts';

export interface ImageUrlPolicy {
  /** Embedded mode (one developer machine): http:// and private addresses are allowed too. */
  embedded: boolean;
  /** Hosts (as written in the URL) read over http or https even though they are private, e.g. an internal image server. */
  trustedHosts?: readonly string[];
}

export const MAX_IMAGE_URL_LENGTH = 2048;

const INVALID = 'Must be a valid http:// or https:// URL';

/** The host of a URL without the brackets of an IPv6 literal. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Why `host` is an internal address (e.g. '127.0.0.1 is a loopback address'), or undefined. */
function internalHost(host: string): string | undefined {
  if (net.isIP(host)) {
    const reason = blockedAddressReason(host);
    return reason ? `${host} is a ${reason} address` : undefined;
  }
  // RFC 6761: localhost and every name under it are this machine, whatever DNS says
  if (/^(.+\.)?localhost\.?$/i.test(host)) return `${host} is this machine`;
  return undefined;
}

/**
 * Parses `text` as an image URL we may fetch under `policy`, or answers why not, as a
 * message to show after the field name ('Must be an https:// URL').
 *
 * @example
 * checkImageUrl('http://10.0.0.7/a.png', { embedded: false }) // { problem: 'Must be an https:// URL' }
 */
export function checkImageUrl(text: string, policy: ImageUrlPolicy): { url: URL } | { problem: string } {
  if (text.length > MAX_IMAGE_URL_LENGTH) return { problem: `Must be at most ${MAX_IMAGE_URL_LENGTH} characters` };
  // the URL parser would quietly drop or encode these, so the URL read would not be the one given
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this refuses
  if (/[\s\x00-\x1f\x7f]/.test(text) || !URL.canParse(text)) return { problem: INVALID };
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: INVALID };
  if (!url.hostname) return { problem: INVALID };
  const host = bareHost(url);
  if (policy.embedded || policy.trustedHosts?.includes(host)) return { url };
  if (url.protocol !== 'https:') return { problem: 'Must be an https:// URL' };
  const internal = internalHost(host);
  if (internal) return { problem: `Must be a public address (${internal})` };
  return { url };
}
