/**
 * @module The router every route file builds on: an OpenAPIHono whose validation failures
 * go through the one error contract (a 400 with one readable message per invalid field).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import type { AppEnv } from '../context.ts';
import { validationError } from '../errors.ts';

export function createRouter<E extends Env = AppEnv>() {
  return new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });
}
