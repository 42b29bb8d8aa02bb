/**
 * @module Provider refusals as API errors: a missing (or someone else's) object is a 404,
 * an invalid request or card error a 400 with the provider's message.
 */
import { ProviderError } from '../../billing/payment-provider.ts';
import { ApiError } from '../../errors.ts';

/** Runs a provider call, answering `notFound` for an object this customer does not own. */
export async function providerCall<T>(call: () => Promise<T>, notFound: string): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    if (e.code === 'resource_missing') throw new ApiError('not_found', notFound);
    throw new ApiError('bad_request', e.message);
  }
}
