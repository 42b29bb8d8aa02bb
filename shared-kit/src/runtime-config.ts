/** The deploy-time configuration the shell fetches from /runtime-config.json before it renders. */
export type RuntimeConfig = {
  mode: string;
  supabaseUrl: string;
  supabaseAnonKey: string;
  apiBaseUrl: string;
  captcha: { provider: 'altcha'; challengeUrl: string };
  /** MF remote name -> mf-manifest.json URL (possibly replaced by a preview override). */
  remotes: Record<string, string>;
  /** Origin patterns a preview override may point at: 'http://localhost:*' (any port), 'https://*.preview.example.com' (any subdomain). */
  previewAllowList: string[];
  docsUrl: string;
  mailboxUrl?: string;
  /** How long a remote may take to load before its slot shows the slow-remote fallback. */
  remoteTimeoutMs?: number;
};

let current: RuntimeConfig | null = null;

export function setRuntimeConfig(config: RuntimeConfig): void {
  current = config;
}

export function getRuntimeConfig(): RuntimeConfig {
  if (!current) throw new Error('Runtime config not loaded yet: the shell (or a standalone bootstrap) sets it before rendering');
  return current;
}

/** Fetches a runtime-config.json and checks the fields every app relies on. */
export async function fetchRuntimeConfig(url: string): Promise<RuntimeConfig> {
  const res = await fetch(url, { cache: 'no-store' });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return parseRuntimeConfig(await res.json());
}

export function parseRuntimeConfig(raw: unknown): RuntimeConfig {
  const cfg = raw as Partial<RuntimeConfig> | null;
  const missing = (['supabaseUrl', 'supabaseAnonKey', 'apiBaseUrl', 'remotes'] as const).filter((k) => !cfg?.[k]);
  if (missing.length) throw new Error(`runtime-config.json is missing ${missing.join(', ')}`);
  const full = cfg as RuntimeConfig;
  return {
    ...full,
    mode: full.mode ?? 'embedded',
    captcha: full.captcha ?? { provider: 'altcha', challengeUrl: '' },
    previewAllowList: full.previewAllowList ?? [],
    docsUrl: full.docsUrl ?? '',
  };
}
