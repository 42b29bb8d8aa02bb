// Per-module preview: `?mf-preview=mfe_tools=http://localhost:4001/mf-manifest.json` points one
// remote at another build for this tab. An override loads and runs foreign JS with the user's
// session, so only known remotes and allow-listed origins are accepted.

const PREVIEW_PARAM = 'mf-preview';
export const PREVIEW_STORAGE_KEY = 'aim.mf-preview.v1';

export type PreviewOverride = { name: string; url: string };
type RefusedPreview = PreviewOverride & { reason: string };
export type PreviewResult = {
  remotes: Record<string, string>;
  active: PreviewOverride[];
  refused: RefusedPreview[];
  /** What to keep in sessionStorage: the accepted overrides only. */
  stored: Record<string, string>;
};

/**
 * One allow-list entry: an origin whose host may start with '*.' (any subdomain, never the apex
 * itself) and whose port may be '*' (any port): 'http://localhost:*',
 * 'https://*.preview.example.com', 'https://*.preview.example.com:*'. Anything else (a path, a
 * bare '*', '*' inside a label, userinfo) is not a pattern and matches nothing.
 */
const ORIGIN_PATTERN = /^(https?):\/\/(\*\.)?(\[[0-9a-f:.]+\]|[^/:*@\s[\]?#\\]+)(?::(\d{1,5}|\*))?\/?$/i;

function matchesPattern(target: URL, pattern: string): boolean {
  const m = ORIGIN_PATTERN.exec(pattern.trim());
  if (!m) return false;
  const [, scheme, wildcard, host, port] = m as unknown as [string, string, string | undefined, string, string | undefined];
  let base: URL;
  try {
    base = new URL(`${scheme}://${host}${port && port !== '*' ? `:${port}` : ''}`);
  } catch {
    return false;
  }
  // Same scheme: an https pattern never admits http (no downgrade).
  if (base.protocol !== target.protocol) return false;
  if (wildcard) {
    // '*.' needs a registrable-looking base ('*.com' is refused) and a real label before it:
    // 'x.preview.example.com' matches, 'preview.example.com' (the apex), 'xpreview.example.com'
    // and 'preview.example.com.evil.test' do not.
    if (!base.hostname.includes('.') || base.hostname.startsWith('[')) return false;
    if (!target.hostname.endsWith(`.${base.hostname}`)) return false;
  } else if (target.hostname !== base.hostname) return false;
  return port === '*' || base.port === target.port;
}

/** Whether a preview manifest URL is on the allow-list (see matchesPattern for the syntax). */
export function isOriginAllowed(url: string, allowList: readonly string[]): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return false;
  // 'https://user@host' is refused outright: nobody needs credentials in a preview URL.
  if (target.username || target.password) return false;
  // Empty labels ('a..example.com') and a trailing root dot are not hosts a preview lives on.
  if (target.hostname.split('.').some((label) => label === '')) return false;
  return allowList.some((pattern) => matchesPattern(target, pattern));
}

export function parsePreviewParams(search: string): PreviewOverride[] {
  return new URLSearchParams(search).getAll(PREVIEW_PARAM).flatMap((raw) => {
    const i = raw.indexOf('=');
    return i > 0 ? [{ name: raw.slice(0, i), url: raw.slice(i + 1) }] : [];
  });
}

export function resolvePreviews(input: {
  remotes: Record<string, string>;
  allowList: readonly string[];
  search: string;
  stored: Record<string, string>;
}): PreviewResult {
  const requested: Record<string, string> = { ...input.stored };
  for (const { name, url } of parsePreviewParams(input.search)) requested[name] = url;
  const remotes = { ...input.remotes };
  const active: PreviewOverride[] = [];
  const refused: RefusedPreview[] = [];
  const stored: Record<string, string> = {};
  for (const [name, url] of Object.entries(requested)) {
    if (!(name in remotes)) refused.push({ name, url, reason: `${name} is not a known module` });
    else if (!isOriginAllowed(url, input.allowList)) refused.push({ name, url, reason: 'origin is not on the preview allow-list' });
    else {
      remotes[name] = url;
      active.push({ name, url });
      stored[name] = url;
    }
  }
  last = { remotes, active, refused, stored };
  return last;
}

let last: PreviewResult | undefined;

/** What the shell's start-up resolved for this page (bootstrap calls resolvePreviews once). */
export function currentPreview(): PreviewResult | undefined {
  return last;
}

export function readStoredPreviews(storage: Storage): Record<string, string> {
  try {
    const value = JSON.parse(storage.getItem(PREVIEW_STORAGE_KEY) ?? '{}') as unknown;
    return value && typeof value === 'object' ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The URL without its mf-preview parameters, so Reset and shared links do not re-apply them. */
export function stripPreviewParams(href: string): string {
  const url = new URL(href);
  url.searchParams.delete(PREVIEW_PARAM);
  return url.toString();
}
