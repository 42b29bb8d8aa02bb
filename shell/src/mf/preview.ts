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

/** Patterns are origins; a '*' port matches any port ('http://localhost:*'). */
export function isOriginAllowed(url: string, allowList: readonly string[]): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  return allowList.some((pattern) => {
    const anyPort = pattern.endsWith(':*');
    let allowed: URL;
    try {
      allowed = new URL(anyPort ? pattern.slice(0, -2) : pattern);
    } catch {
      return false;
    }
    if (allowed.protocol !== target.protocol || allowed.hostname !== target.hostname) return false;
    return anyPort || allowed.port === target.port;
  });
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
  return { remotes, active, refused, stored };
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
