// Stand-in for two parts of @supabase/auth-js in the browser builds (`supabaseAliases` in
// ../mf-shared.ts): its WebAuthn (passkey) helpers and its Ethereum (Web3 sign-in) helpers, which
// GoTrueClient imports for sign-in methods the dashboard never offers (~4 KiB gzip on every cold
// load). The names are the ones GoTrueClient imports; passkey calls report no WebAuthn support
// (auth-js's own answer on such a browser), anything else fails loudly.
const unused = (what: string) => new Error(`${what} is not bundled in the dashboard (shared-kit/src/supabase-auth-unused.ts): drop its alias to use it`);

export const browserSupportsWebAuthn = () => false;

export const webAuthnAbortService = {
  createNewAbortSignal: () => new AbortController().signal,
  cancelCeremony: () => undefined,
};

export class WebAuthnApi {
  private readonly fail = () => Promise.reject(unused('Supabase WebAuthn'));
  enroll = this.fail;
  challenge = this.fail;
  verify = this.fail;
  authenticate = this.fail;
  register = this.fail;
}

const webAuthnHelper = (): never => {
  throw unused('Supabase WebAuthn');
};
export const createCredential = webAuthnHelper;
export const getCredential = webAuthnHelper;
export const deserializeCredentialCreationOptions = webAuthnHelper;
export const deserializeCredentialRequestOptions = webAuthnHelper;
export const serializeCredentialCreationResponse = webAuthnHelper;
export const serializeCredentialRequestResponse = webAuthnHelper;

const web3Helper = (): never => {
  throw unused('Supabase Web3 (Ethereum) sign-in');
};
export const createSiweMessage = web3Helper;
export const fromHex = web3Helper;
export const getAddress = web3Helper;
export const toHex = web3Helper;
