import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { badJson, validationFailed } from './errors.ts';

export type JsonObject = Record<string, unknown>;

/** The request body as a JSON object; anything else is GoTrue's 400 bad_json. */
export async function readJsonObject(c: Context): Promise<JsonObject> {
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw badJson(text.trim() ? (e as Error).message : 'unexpected end of JSON input');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badJson(`expected a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'null' : typeof value}`);
  }
  return value as JsonObject;
}

/** A string field (null/absent → undefined). Other types fail like Go's json decoder: bad_json. */
export function optionalString(body: JsonObject, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badJson(`field "${key}" must be a string`);
  return v;
}

export function optionalObject(body: JsonObject, key: string): JsonObject | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw badJson(`field "${key}" must be an object`);
  return v as JsonObject;
}

// GoTrue's email pattern (internal/api/mail.go validateEmail), RFC 5322 dot-atom with hostname labels.
const EMAIL_RE = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Trimmed and lower-cased (one account per address, as the mdusers unique index expects). */
export function validateEmail(raw: string | undefined): string {
  const email = (raw ?? '').trim();
  if (!email) throw validationFailed('An email address is required');
  if (email.length > 255) throw validationFailed('An email address is too long');
  if (!EMAIL_RE.test(email)) throw validationFailed('Unable to validate email address: invalid format');
  return email.toLowerCase();
}

/**
 * The client's address as the TCP peer the Node server saw (IPv4-mapped IPv6 written as
 * IPv4). Forwarding headers are not believed: nothing sits in front of these services, and
 * a client could send any. 'unknown' when the app is called without a Node server.
 */
export function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const address = incoming?.socket?.remoteAddress;
  return address ? address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '') : 'unknown';
}
