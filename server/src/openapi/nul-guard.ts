/**
 * @module Postgres cannot store the NUL character (U+0000) in text: a query carrying one
 * fails (SQLSTATE 22021), which would surface as a 500. Every validated request value
 * (JSON body, path, query) passes through here from the router's validation hook, so no
 * route can forget it: a NUL anywhere is a 400 naming the field.
 */
import { ApiError } from '../errors.ts';

export const NUL_MESSAGE = 'Must not contain the NUL character (\\u0000)';

interface Node {
  value: unknown;
  key?: string;
  parent?: Node;
}

function pathOf(node: Node): string {
  const keys: string[] = [];
  for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) keys.unshift(n.key);
  return keys.join('.');
}

/**
 * The path (`card.name`, `items.2`) of the first string or object key holding a NUL, or
 * undefined. Walks iteratively: a value can be nested deeper than the call stack allows.
 */
function findNulPath(value: unknown): string | undefined {
  const stack: Node[] = [{ value }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const v = node.value;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return pathOf(node);
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      // a key with a NUL is named by its parent: the message must not echo the NUL
      if (entries.some(([key]) => key.includes('\u0000'))) return pathOf(node);
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i][1], key: entries[i][0], parent: node });
    }
  }
  return undefined;
}

/**
 * Throws a 400 validation_failed naming the field when a validated value holds a NUL
 * (`target`, e.g. json, names a value that is itself a string).
 *
 * @example
 * rejectNulCharacters({ prompt: 'a\u0000' }, 'json') // throws 'prompt: Must not contain the NUL character (\u0000)'
 */
export function rejectNulCharacters(value: unknown, target: string): void {
  const path = findNulPath(value);
  if (path === undefined) return;
  throw new ApiError('validation_failed', `${path || target}: ${NUL_MESSAGE}`);
}
