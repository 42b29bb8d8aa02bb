/**
 * @module The Idempotency-Key header in the OpenAPI document: one reusable header parameter
 * (components/parameters/IdempotencyKey) that each create or charge operation lists, and the
 * answers it adds to those operations (the replay header on 2xx, 409 and 422), filled in once
 * the document is built so no route repeats them.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { IDEMPOTENCY_KEY_IN_USE_MESSAGE, INVALID_IDEMPOTENCY_KEY_MESSAGE, keyReusedMessage } from '../middleware/idempotency/index.ts';
import { IDEMPOTENCY_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH, REPLAYED_HEADER } from '../middleware/idempotency/fingerprint.ts';
import type { OpenApiDocument } from './document.ts';
import { errorExample } from './schemas.ts';

const COMPONENT = 'IdempotencyKey';

/** For a route's `parameters`: the operation takes an Idempotency-Key (with the idempotency middleware). */
export const idempotencyKeyParameter = { $ref: `#/components/parameters/${COMPONENT}` };

export function registerIdempotencyParameter<E extends Env>(app: OpenAPIHono<E>): void {
  app.openAPIRegistry.registerComponent('parameters', COMPONENT, {
    name: IDEMPOTENCY_HEADER,
    in: 'header',
    required: false,
    description:
      'Makes the call safe to retry: a unique value per action (a UUID), scoped to your account. Within 24 hours, the same key with the same request ' +
      '(method, path and body; JSON compared with its keys in any order) answers the first answer again, with `Idempotent-Replayed: true`, ' +
      'and creates nothing more; with another request it answers 422 idempotency_key_reused; while the first request still runs, a retry waits up to 2 s, ' +
      'then answers 409 idempotency_key_in_use. Only successful (2xx) answers are kept: after an error the key can be used again.',
    schema: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
      pattern: '^[\\x20-\\x7E]+$',
      example: '5f0c9c1e-4b7e-4d55-9a53-2d1f6c1b8e0a',
    },
  });
}

const errorContent = (msg: string, code: string) => ({
  'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, example: errorExample({ msg, code }) },
});

const INVALID_KEY = `An Idempotency-Key that is not 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters (invalid_idempotency_key).`;
const IN_USE = 'A request with the same Idempotency-Key is still in progress (idempotency_key_in_use); retry after Retry-After seconds.';

interface ResponseObject {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, unknown>;
}

/** Adds the replay header, 409 and 422 to every operation that lists the Idempotency-Key parameter. */
export function withIdempotencyAnswers(document: OpenApiDocument): OpenApiDocument {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {})) {
      const operation = op as { parameters?: { $ref?: string }[]; responses?: Record<string, ResponseObject> };
      if (!operation.parameters?.some((p) => p.$ref === idempotencyKeyParameter.$ref) || !operation.responses) continue;
      const responses = operation.responses;
      for (const [status, response] of Object.entries(responses)) {
        if (!status.startsWith('2')) continue;
        responses[status] = {
          ...response,
          headers: {
            ...response.headers,
            [REPLAYED_HEADER]: {
              description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
              schema: { type: 'string', enum: ['true'] },
            },
          },
        };
      }
      const own = responses['409'];
      responses['409'] = own
        ? { ...own, description: `${own.description ?? ''} Or: ${IN_USE}`.trim() }
        : { description: IN_USE, content: errorContent(IDEMPOTENCY_KEY_IN_USE_MESSAGE, 'idempotency_key_in_use') };
      responses['422'] = {
        description: 'The Idempotency-Key was already used, within 24 hours, for another request (another path or body); nothing was done.',
        content: errorContent(keyReusedMessage({ method: 'POST', path }, method.toUpperCase(), path), 'idempotency_key_reused'),
      };
      const badRequest = responses['400'];
      responses['400'] = badRequest
        ? { ...badRequest, description: `${badRequest.description ?? ''} Or: ${INVALID_KEY}`.trim() }
        : { description: INVALID_KEY, content: errorContent(INVALID_IDEMPOTENCY_KEY_MESSAGE, 'invalid_idempotency_key') };
    }
  }
  return document;
}
