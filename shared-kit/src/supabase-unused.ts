// Stand-in for @supabase/storage-js and @supabase/functions-js in the browser builds (see
// `supabaseAliases` in ../mf-shared.ts). The dashboard uses Supabase auth, PostgREST and realtime
// only; supabase-js still constructs a storage client in createClient and exports the functions
// error classes, so this module provides the same names (~10 KiB gzip less on every cold load).
// Anything that actually calls storage or functions fails loudly instead of silently.
const unused = (what: string) => new Error(`${what} is not bundled in the dashboard (shared-kit/src/supabase-unused.ts): add the real package back to use it`);

export class StorageClient {
  from(): never {
    throw unused('Supabase Storage');
  }
}

export class StorageApiError extends Error {}

export class FunctionsClient {
  invoke(): Promise<never> {
    return Promise.reject(unused('Supabase Edge Functions'));
  }
  setAuth(): void {}
}

export class FunctionsError extends Error {}
export class FunctionsFetchError extends FunctionsError {}
export class FunctionsHttpError extends FunctionsError {}
export class FunctionsRelayError extends FunctionsError {}

export const FunctionRegion = { Any: 'any' } as const;
