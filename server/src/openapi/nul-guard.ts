/**
 * @module Text the database cannot store as sent. Postgres cannot store the NUL character
 * (U+0000) in text: a query carrying one fails (SQLSTATE 22021), which would surface as a
 * 500. A lone surrogate (invalid UTF-16, e.g. JSON `"\ud800"`) has no UTF-8 form: the driver
 * would store U+FFFD instead (a webhook URL then comes back changed), and code that encodes
 * it (encodeURIComponent) throws, another 500. Every validated request value (JSON body,
 * path, query) passes through here from the router's validation hook, so no route can forget
 * it: either anywhere is a 400 naming the field.
 */
import { ApiError } from '../errors.ts';

export const NUL_MESSAGE = 'Must not contain the NUL character (\\u0000)';
export const LONE_SURROGATE_MESSAGE = 'Must be valid Unicode text, not a lone surrogate (such as \\ud800)';

// in a `u` regex a well-formed surrogate pair is one code point: only a lone half matches
const LONE_SURROGATE = /\p{Cs}/u;

/** What is wrong with the text, or undefined when the database can store it as is. */
function defectOf(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL_MESSAGE;
  if (LONE_SURROGATE.test(text)) return LONE_SURROGATE_MESSAGE;
  return undefined;
}

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
 * The path (`card.name`, `items.2`) of the first string or object key the database cannot
 * store, and what is wrong with it, or undefined. Walks iteratively: a value can be nested
 * deeper than the call stack allows.
 */
function findUnstorable(value: unknown): { path: string; message: string } | undefined {
  const stack: Node[] = [{ value }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const v = node.value;
    if (typeof v === 'string') {
      const message = defectOf(v);
      if (message) return { path: pathOf(node), message };
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      // a bad key is named by its parent: the message must not echo the key
      for (const [key] of entries) {
        const message = defectOf(key);
        if (message) return { path: pathOf(node), message };
      }
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i][1], key: entries[i][0], parent: node });
    }
  }
  return undefined;
}

/**
 * Throws a 400 validation_failed naming the field when a validated value holds a NUL or a
 * lone surrogate (`target`, e.g. json, names a value that is itself a string).
 *
 * @example
 * rejectUnstorableText({ prompt: 'a\u0000' }, 'json') // throws 'prompt: Must not contain the NUL character (\u0000)'
 * rejectUnstorableText({ tags: ['\ud800'] }, 'json') // throws 'tags.0: Must be valid Unicode text, not a lone surrogate (such as \ud800)'
 */
export function rejectUnstorableText(value: unknown, target: string): void {
  const found = findUnstorable(value);
  if (found === undefined) return;
  throw new ApiError('validation_failed', `${found.path || target}: ${found.message}`);
}
