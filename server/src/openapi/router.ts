/**
 * @module The router every route file builds on: an OpenAPIHono whose validation failures
 * go through the one error contract (a 400 with one readable message per invalid field),
 * and whose validated values never carry a NUL character or a lone surrogate to the database.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import type { AppEnv } from '../context.ts';
import { validationError } from '../errors.ts';
import { rejectUnstorableText } from './nul-guard.ts';

export function createRouter<E extends Env = AppEnv>() {
  return new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
      rejectUnstorableText(result.data, result.target);
    },
  });
}
