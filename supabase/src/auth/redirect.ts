import { isIP } from 'node:net';
import type { LocalSupabaseConfig } from '../config.ts';

function isLoopbackIp(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1';
  return false;
}

const isLoopbackHost = (hostname: string) => hostname === 'localhost' || isLoopbackIp(hostname);

// GoTrue compiles URI_ALLOW_LIST entries with gobwas/glob using '.' and '/' as separators:
// `*` stays inside one label or path segment, `**` crosses them.
function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (ch === '*') re += '[^./]*';
    else if (ch === '?') re += '[^./]';
    else re += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** GoTrue's IsRedirectURLValid (internal/utilities/request.go). */
export function isRedirectUrlValid(config: Pick<LocalSupabaseConfig, 'siteUrl' | 'redirectAllowList'>, redirectUrl: string): boolean {
  let ref: URL;
  let site: URL;
  try {
    ref = new URL(redirectUrl);
    site = new URL(config.siteUrl);
  } catch {
    return false;
  }
  const web = ref.protocol === 'http:' || ref.protocol === 'https:';
  if (web && ref.protocol === site.protocol) {
    if (ref.host === site.host) return true;
    // Dev servers move ports; on loopback the site is the host, whatever the port.
    if (isLoopbackHost(site.hostname) && ref.hostname === site.hostname) return true;
  }
  if (web && isLoopbackIp(ref.hostname)) return true;
  return config.redirectAllowList.some((glob) => globToRegExp(glob).test(redirectUrl));
}

/** A requested redirect if allowed, otherwise the site URL (GoTrue replaces it silently). */
export function resolveRedirect(config: Pick<LocalSupabaseConfig, 'siteUrl' | 'redirectAllowList'>, requested: string | undefined | null): string {
  return requested && isRedirectUrlValid(config, requested) ? requested : config.siteUrl;
}
