/**
 * Postgres cannot store the NUL character (U+0000): a query carrying one fails (22021) and
 * would surface as a 500. GoTrue answers input it cannot use with 400 validation_failed; so
 * do we, before any route runs, for a NUL in a query parameter or anywhere in the body (JSON
 * or a form), naming the field.
 */
import type { MiddlewareHandler } from 'hono';
import { validationFailed } from './errors.ts';

const NUL = '\u0000';

const nulIn = (field: string) => validationFailed(`${field}: must not contain the NUL character (\\u0000)`);

/** The path of the first string or key holding a NUL in a parsed JSON value (iterative: any depth). */
function findNul(value: unknown): string | undefined {
  const stack: { value: unknown; path: string }[] = [{ value, path: 'body' }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (typeof item.value === 'string') {
      if (item.value.includes(NUL)) return item.path;
    } else if (typeof item.value === 'object' && item.value !== null) {
      for (const [key, child] of Object.entries(item.value)) {
        if (key.includes(NUL)) return item.path;
        stack.push({ value: child, path: item.path === 'body' ? key : `${item.path}.${key}` });
      }
    }
  }
  return undefined;
}

function findNulInParams(params: URLSearchParams): string | undefined {
  for (const [name, value] of params) {
    if (name.includes(NUL)) return 'parameter name';
    if (value.includes(NUL)) return name;
  }
  return undefined;
}

/** 400 validation_failed for a NUL anywhere in the request's parameters or body. */
export function rejectNulCharacters(): MiddlewareHandler {
  return async (c, next) => {
    const inQuery = findNulInParams(new URL(c.req.url).searchParams);
    if (inQuery) throw nulIn(inQuery);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      // read once here; hono keeps the text for the route
      const text = await c.req.text();
      if (text.includes(NUL)) throw nulIn('body');
      const form = /^application\/x-www-form-urlencoded/i.test(c.req.header('content-type') ?? '');
      let field: string | undefined;
      if (form) field = findNulInParams(new URLSearchParams(text));
      else {
        try {
          field = findNul(JSON.parse(text));
        } catch {
          // not JSON: the route answers bad_json
        }
      }
      if (field) throw nulIn(field);
    }
    await next();
  };
}
