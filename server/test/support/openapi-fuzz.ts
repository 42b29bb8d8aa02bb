/**
 * Requests for a property-based fuzz of the API, generated from its OpenAPI document:
 * values that fit each operation's schemas, mixed with hostile ones (NUL, lone surrogates,
 * 1 MB strings, deep nesting, wrong types, unknown keys), wrong content types, garbage
 * bodies, odd paths and methods, and missing or garbage credentials.
 */
import fc from 'fast-check';

interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  /** `base64` for binary sent as text (e.g. AI photos). */
  contentEncoding?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  example?: unknown;
}

interface Parameter {
  name: string;
  in: string;
  schema?: Schema;
}

interface OperationObject {
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, Schema> };
}

/** Bytes a Request body accepts (not a view of a SharedArrayBuffer). */
type Bytes = Uint8Array<ArrayBuffer>;

export interface Operation {
  method: string;
  /** The templated path, e.g. /media/{key}. */
  path: string;
  authed: boolean;
  /** The schema of an application/json body, if the operation reads one. */
  json?: Schema;
  multipart: boolean;
  pathParams: Parameter[];
}

/** Every operation of the document (method × path). */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      authed: (op.security ?? []).length > 0,
      json: op.requestBody?.content?.['application/json']?.schema,
      multipart: Boolean(op.requestBody?.content?.['multipart/form-data']),
      pathParams: (op.parameters ?? []).filter((p) => p.in === 'path'),
    })),
  );
}

/** What the fuzz knows while it runs: the current API key and values the API handed out. */
export interface FuzzState {
  apiKey: string;
  /** Strings seen in successful answers, by property name (task_id, clientSecret, key, …). */
  learned: Map<string, string[]>;
  /** A small valid image, for uploads. */
  png: Bytes;
  /** Distinct small valid photos as base64, for fields that take base64 (enough for the largest minItems). */
  photos: string[];
  /** A signed-in dashboard session (X-Session-Token), for the requests that must get past the dashboard-only checks. */
  session?: string;
}

const MAX_LEARNED = 20;

/** Remembers the string leaves of a successful JSON answer, for later requests to reuse. */
export function learnFrom(state: FuzzState, body: unknown): void {
  const stack: { value: unknown; key: string; depth: number }[] = [{ value: body, key: '', depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { value, key, depth } = item;
    if (typeof value === 'string') {
      const media = /\/media\/([^/?#]+)$/.exec(value);
      for (const [name, v] of [[key, value], ...(media ? [['key', media[1]]] : [])]) {
        const list = state.learned.get(name) ?? [];
        if (!list.includes(v)) list.push(v);
        state.learned.set(name, list.slice(-MAX_LEARNED));
      }
    } else if (typeof value === 'object' && value !== null && depth < 3) {
      for (const [k, v] of Object.entries(value)) stack.push({ value: v, key: Array.isArray(value) ? key : k, depth: depth + 1 });
    }
  }
}

// request fields that take a value the API answered under another name
const ALIASES: Record<string, string[]> = {
  parent_task_id: ['task_id'],
  client_secret: ['clientSecret'],
  paymentMethodId: ['id', 'payment_method'],
  payment_method: ['id', 'payment_method'],
  swap_image_url: ['imageURL'],
  target_image_url: ['imageURL'],
  training_images_id: ['task_id'],
  training_id: ['task_id'],
  // pictures the picture actions read (describe, blend, Ideogram, Flux's image prompt, /upscale-highres)
  image_url: ['imageURL'],
  image_urls: ['imageURL'],
  image_prompt: ['imageURL'],
};

function learnedFor(state: FuzzState, field: string): string[] {
  return [field, ...(ALIASES[field] ?? [])].flatMap((name) => state.learned.get(name) ?? []);
}

/** JSON text put in a body as is: nesting deeper than JSON.stringify's stack allows, huge numbers. */
class RawJson {
  constructor(readonly text: string) {}
}

/** JSON.stringify, except that RawJson is inserted verbatim (lone surrogates come out escaped). */
function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const MB = 1_000_000;

/** Strings that have broken servers before. */
const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\u0000'.repeat(64),
  '\ud800',
  '\udfff',
  'a\udc00\ud800b',
  '\ud83d',
  // a lone low surrogate after a multi-byte character (PGlite mis-encoded these)
  'é\udc00',
  '日本\udfff',
  '',
  ' ',
  '\t\r\n',
  '\u202e\u200b\ufeff',
  "'; drop table public.mdusers; --",
  '%00',
  '\\u0000',
  '../../etc/passwd',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template injection probe, literally
  '${7*7}{{7*7}}',
  '<script>alert(1)</script>',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✓ 日本',
  'null',
  '-1',
  '1e309',
  '9'.repeat(400),
  'x'.repeat(MB),
  'é'.repeat(MB / 2),
  'a'.repeat(5000),
];

// single UTF-16 units: NUL, surrogate halves and anything else
const charUnit = fc.oneof(
  fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff'),
  fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)),
);

const hostileString: fc.Arbitrary<string> = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ unit: charUnit, maxLength: 24 }));

/** NUL, or a lone surrogate, somewhere inside a string that would otherwise fit. */
function poisoned(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.nat(), fc.constantFrom('\u0000', '\ud800', '\udc00')).map(([v, at, bad]) => {
    if (typeof v !== 'string') return v;
    const i = at % (v.length + 1);
    return v.slice(0, i) + bad + v.slice(i);
  });
}

const deepNesting = fc
  .tuple(fc.constantFrom(64, 1000, 100_000), fc.boolean())
  .map(([depth, arrays]) => new RawJson(arrays ? '['.repeat(depth) + ']'.repeat(depth) : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));

const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom([], {}, [null], { '': '' }, -0, 0.5, 1e308, Number.MAX_SAFE_INTEGER + 2),
  fc.constantFrom(new RawJson('1e999999'), new RawJson('-1e999999'), new RawJson('123456789012345678901234567890'), new RawJson('[1,[2,[3]]]')),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
  deepNesting,
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof({ weight: 3, arbitrary: hostileString }, { weight: 2, arbitrary: wrongType });

const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', '\u0000', 'prompt\u0000', '\ud800', ''),
  fc.string({ unit: charUnit, maxLength: 8 }),
);

function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const found = doc.components?.schemas?.[name];
  if (!found) throw new Error(`unresolved ${schema.$ref}`);
  return resolve(doc, found);
}

/** Values that fit the schema, for a property called `name` (`hostile`: their properties sometimes do not). */
function fitting(doc: OpenApiDocument, state: FuzzState, raw: Schema, name: string, depth: number, hostile = true): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  const options: fc.Arbitrary<unknown>[] = [];
  if (schema.enum) options.push(fc.constantFrom(...schema.enum));
  if (schema.example !== undefined) options.push(fc.constant(schema.example));
  for (const union of [schema.anyOf, schema.oneOf]) for (const s of union ?? []) options.push(fitting(doc, state, s, name, depth + 1, hostile));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  for (const type of types) {
    if (type === 'string') {
      const text = schema.format === 'uuid' ? fc.uuid() : fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
      options.push(text);
      // base64 fields: real photos, plain or as a data: URI, so requests get past the decoding
      if (schema.contentEncoding === 'base64' && state.photos.length) {
        options.push(fc.tuple(fc.constantFrom(...state.photos), fc.boolean()).map(([b64, uri]) => (uri ? `data:image/png;base64,${b64}` : b64)));
      }
      // a value the API handed out under this name (e.g. a real task id), when there is one
      options.push(
        fc.tuple(fc.nat(), text).map(([i, fallback]) => {
          const values = learnedFor(state, name);
          return values.length ? values[i % values.length] : fallback;
        }),
      );
    } else if (type === 'integer' || type === 'number') {
      const bounds = { min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000 };
      options.push(type === 'integer' ? fc.integer(bounds) : fc.double({ ...bounds, noNaN: true }));
    } else if (type === 'boolean') options.push(fc.boolean());
    else if (type === 'null') options.push(fc.constant(null));
    else if (type === 'array' && schema.items) {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 3, minLength + 3));
      options.push(fc.array(field(doc, state, schema.items, name, depth + 1, hostile), { minLength, maxLength }));
      // a whole list of distinct valid photos: one bad entry would stop every request at the first check
      if (resolve(doc, schema.items).contentEncoding === 'base64' && state.photos.length >= minLength) {
        options.push(fc.shuffledSubarray(state.photos, { minLength, maxLength: Math.min(schema.maxItems ?? state.photos.length, state.photos.length) }));
      }
    } else if (type === 'object') options.push(objectOf(doc, state, schema, depth, hostile));
  }
  if (options.length === 0) options.push(fc.jsonValue({ maxDepth: 2 }));
  return fc.oneof(...options);
}

/** A property's value: usually fitting, sometimes poisoned, sometimes hostile (unless not `hostile`: then always fitting). */
function field(doc: OpenApiDocument, state: FuzzState, schema: Schema, name: string, depth: number, hostile = true): fc.Arbitrary<unknown> {
  const valid = depth > 4 ? fc.constant('deep') : fitting(doc, state, schema, name, depth, hostile);
  if (!hostile) return valid;
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: poisoned(valid) }, { weight: 2, arbitrary: hostileValue });
}

/** An object of the schema's properties (required ones always), its example, plus the odd unknown key (when `hostile`). */
function objectOf(doc: OpenApiDocument, state: FuzzState, schema: Schema, depth: number, hostile = true): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries(schema.properties ?? {});
  const record = fc.record(Object.fromEntries(props.map(([name, s]) => [name, field(doc, state, s, name, depth + 1, hostile)])), {
    requiredKeys: schema.required ?? [],
  });
  const extra = hostile
    ? fc.oneof({ weight: 5, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.dictionary(hostileKey, hostileValue, { maxKeys: 2 }) })
    : fc.constant({});
  const shaped = fc.tuple(record, extra).map(([known, unknown]) => Object.assign(Object.fromEntries(Object.entries(unknown)), known));
  if (typeof schema.example !== 'object' || schema.example === null) return shaped;
  // the documented example with values the API handed out (e.g. a real client secret)
  const example = schema.example as Record<string, unknown>;
  const fromExample = fc.nat().map((i) => {
    const out: Record<string, unknown> = { ...example };
    for (const name of Object.keys(out)) {
      const values = learnedFor(state, name);
      if (values.length) out[name] = values[(i + name.length) % values.length];
      // documented base64 examples are placeholders: real photos instead
      const prop = schema.properties?.[name] && resolve(doc, schema.properties[name]);
      if (prop?.contentEncoding === 'base64' && state.photos.length) out[name] = state.photos[i % state.photos.length];
      if (prop?.items && resolve(doc, prop.items).contentEncoding === 'base64') {
        const count = Math.min(state.photos.length, (prop.minItems ?? 1) + (i % 3));
        out[name] = Array.from({ length: count }, (_, k) => state.photos[(i + k) % state.photos.length]);
      }
    }
    return out;
  });
  return fc.oneof({ weight: 3, arbitrary: shaped }, { weight: 1, arbitrary: fromExample });
}

/** A request, ready for `app.request(url, { method, headers, body })` once the key is filled in. */
export interface FuzzRequest {
  method: string;
  url: string;
  /** How to send the API key: one of the accepted forms, or garbage / nothing. */
  auth: { form: 'raw' | 'bearer' | 'padded' } | { header: string | undefined };
  contentType: string | undefined;
  body: Bytes | undefined;
  /** Other headers to send (a dashboard session). */
  headers?: Record<string, string>;
}

/** The Authorization header of a request, given the current key. */
export function authorizationOf(req: FuzzRequest, apiKey: string): string | undefined {
  if ('header' in req.auth) return req.auth.header;
  if (req.auth.form === 'raw') return apiKey;
  if (req.auth.form === 'bearer') return `Bearer ${apiKey}`;
  return `  bearer   ${apiKey}  `;
}

// header values: printable Latin-1 and tabs (Headers refuse NUL, CR and LF)
const headerChar = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09)).map((n) => String.fromCharCode(n));

const garbageAuth = fc.oneof(
  fc.constantFrom(undefined, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'k'.repeat(10_000), "' or '1'='1", 'ÿþ', 'Bearer Bearer x', '0'.repeat(64)),
  fc.string({ unit: headerChar, maxLength: 80 }),
);

function authOf(state: FuzzState, authenticated: boolean, op: Operation): fc.Arbitrary<FuzzRequest['auth']> {
  const garbage = fc.oneof(
    garbageAuth.map((header) => ({ header })),
    // a real key, spoiled
    fc
      .constantFrom(
        (k: string) => `${k}x`,
        (k: string) => k.slice(1),
        (k: string) => k.toUpperCase(),
        (k: string) => `Bearer ${k} ${k}`,
      )
      .map((spoil) => ({ header: spoil(state.apiKey) })),
  );
  if (!authenticated || !op.authed) return garbage;
  const valid = fc.constantFrom<{ form: 'raw' | 'bearer' | 'padded' }>({ form: 'raw' }, { form: 'bearer' }, { form: 'padded' });
  return fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: garbage });
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'Application/JSON'];
const OTHER_TYPES = [
  undefined,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=fuzz',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/merge-patch+json',
  'application/jsonx',
  '*/*',
  ';;;',
  'application/json, text/plain',
];

const contentType = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...JSON_TYPES) }, { weight: 2, arbitrary: fc.constantFrom(...OTHER_TYPES) });

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Whole bodies that are not a JSON object, or not JSON at all. */
const garbageBody: fc.Arbitrary<Bytes> = fc.oneof(
  fc
    .constantFrom('', ' ', 'null', '[]', '1', '"x"', 'true', '{', '{"a":1,}', '{"a":1}{"b":2}', '\ufeff{}', 'undefined', '{"__proto__":{"admin":true}}')
    .map(utf8),
  fc.constantFrom(
    // invalid UTF-8: a lone continuation byte, an encoded surrogate, an overlong NUL
    Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0xff, 0x22, 0x7d]),
    Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
    Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0x80, 0x22, 0x7d]),
  ),
  deepNesting.map((raw) => utf8(raw.text)),
  // over the 1 MiB JSON limit
  fc.constant(utf8(`{"prompt":"${'x'.repeat(1_100_000)}"}`)),
  fc.string({ unit: charUnit, maxLength: 64 }).map(utf8),
);

/** One multipart part, with hostile names, types and contents among the sensible ones. */
function multipartPart(state: FuzzState) {
  const data = fc.oneof(
    fc.constant(state.png),
    fc.constant(new Uint8Array(0)),
    fc.uint8Array({ maxLength: 64 }),
    fc.constant(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3])),
    fc.constant(utf8('GIF89a\u0000\u0000garbage')),
    hostileString.map(utf8),
  );
  return fc.record({
    name: fc.oneof({ weight: 4, arbitrary: fc.constant('image') }, { weight: 1, arbitrary: hostileString.filter((s) => s.length < 100) }),
    filename: fc.option(
      fc.oneof(
        fc.constant('photo.png'),
        hostileString.filter((s) => s.length < 100),
      ),
      { nil: undefined },
    ),
    type: fc.option(fc.constantFrom('image/png', 'text/plain', 'application/json', '\u0000'), { nil: undefined }),
    data,
  });
}

function multipartBody(state: FuzzState): fc.Arbitrary<{ contentType: string | undefined; body: Bytes }> {
  const boundary = 'fuzz-boundary-7MA4YWxk';
  const encoded = fc.tuple(fc.array(multipartPart(state), { maxLength: 3 }), fc.constantFrom('whole', 'truncated', 'no-end')).map(([parts, shape]) => {
    const chunks: Bytes[] = [];
    for (const part of parts) {
      const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
      chunks.push(
        utf8(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`),
        part.data,
        utf8('\r\n'),
      );
    }
    if (shape !== 'no-end') chunks.push(utf8(`--${boundary}--\r\n`));
    const body = Buffer.concat(chunks);
    return shape === 'truncated' ? body.subarray(0, Math.floor(body.length / 2)) : body;
  });
  const type = fc.oneof(
    { weight: 8, arbitrary: fc.constant(`multipart/form-data; boundary=${boundary}`) },
    { weight: 1, arbitrary: fc.constantFrom('multipart/form-data; boundary=other', 'multipart/form-data', 'multipart/mixed; boundary=x', ...OTHER_TYPES) },
  );
  return fc.oneof(
    { weight: 8, arbitrary: fc.record({ contentType: type, body: encoded }) },
    { weight: 1, arbitrary: fc.record({ contentType: fc.constantFrom(...OTHER_TYPES, ...JSON_TYPES), body: garbageBody }) },
  );
}

/** A path segment, percent-encoded byte by byte (lone surrogates become U+FFFD, as fetch would send them). */
function encodeSegment(text: string): string {
  return Array.from(Buffer.from(text, 'utf8'), (b) =>
    /[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`,
  ).join('');
}

const rawSegment = fc.constantFrom('%', '%zz', '%00', '%ED%A0%80', '%FF', '%C0%80', '%2F', '..', '.', '%2e%2e', 'a%00.png');

function pathOf(doc: OpenApiDocument, state: FuzzState, op: Operation): fc.Arbitrary<string> {
  if (op.pathParams.length === 0) return fc.constant(op.path);
  const values = op.pathParams.map((p) =>
    fc.oneof(
      { weight: 4, arbitrary: fitting(doc, state, p.schema ?? { type: 'string' }, p.name, 0).map((v) => encodeSegment(String(v))) },
      { weight: 2, arbitrary: hostileString.filter((s) => s.length < 10_000).map(encodeSegment) },
      { weight: 1, arbitrary: rawSegment },
    ),
  );
  return fc.tuple(...values).map((segments) => op.pathParams.reduce((path, p, i) => path.replace(`{${p.name}}`, segments[i]), op.path));
}

const query = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('?a=%00', '?%', '?__proto__[x]=1', '?key=%ED%A0%80', `?q=${'x'.repeat(5000)}`) },
);

const otherMethod = fc.constantFrom('PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');

/** Requests for one operation: mostly its method and shape, sometimes not. */
export function requestsFor(doc: OpenApiDocument, state: FuzzState, op: Operation, authenticated: boolean): fc.Arbitrary<FuzzRequest> {
  const method = fc.oneof({ weight: 12, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: otherMethod });
  let payload: fc.Arbitrary<{ contentType: string | undefined; body: Bytes | undefined }>;
  if (op.multipart) payload = multipartBody(state);
  else if (op.json) {
    const json = field(doc, state, op.json, '', 0).map((v) => utf8(toJson(v)));
    payload = fc.record({ contentType, body: fc.oneof({ weight: 8, arbitrary: json }, { weight: 2, arbitrary: garbageBody }) });
  } else {
    // no body expected: mostly none, sometimes one anyway
    payload = fc.oneof(
      { weight: 4, arbitrary: fc.constant({ contentType: undefined, body: undefined }) },
      { weight: 1, arbitrary: fc.record({ contentType, body: garbageBody }) },
    );
  }
  return fc.record({ method, path: pathOf(doc, state, op), query, auth: authOf(state, authenticated, op), payload }).map((r) => ({
    method: r.method,
    url: r.path + r.query,
    auth: r.auth,
    contentType: r.payload.contentType,
    // fetch refuses a body on GET and HEAD
    body: r.method === 'GET' || r.method === 'HEAD' ? undefined : r.payload.body,
  }));
}

/** Lone surrogates (invalid UTF-16), as JSON carries them escaped: halves alone, and a pair in the wrong order. */
const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00\ud83d'];

/** The paths (`card.name`, `images.0`) of a value's string leaves. */
function stringLeaves(value: unknown, path: string[] = []): string[][] {
  if (typeof value === 'string') return [path];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...path, k]));
}

/** A copy of `value` with the leaf at `path` replaced. */
function replaceAt(value: unknown, path: string[], leaf: string): unknown {
  if (path.length === 0) return leaf;
  const [key, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (String(i) === key ? replaceAt(v, rest, leaf) : v));
  const object = value as Record<string, unknown>;
  return { ...object, [key]: replaceAt(object[key], rest, leaf) };
}

/** A request whose JSON body fits the operation except for one string field holding a lone surrogate, that field's path. */
interface SurrogateRequest {
  req: FuzzRequest;
  field: string;
}

/**
 * For an operation with a JSON body: a body of fitting values (nothing else hostile) with a
 * lone surrogate put into one of its string fields, sent with the API key (and the dashboard
 * session, when there is one), so that nothing but the surrogate stands in its way. Undefined when the operation reads no JSON body.
 */
export function surrogateRequestsFor(doc: OpenApiDocument, state: FuzzState, op: Operation): fc.Arbitrary<SurrogateRequest | undefined> | undefined {
  if (!op.json || op.multipart || op.pathParams.length > 0) return undefined;
  const body = fitting(doc, state, op.json, '', 0, false);
  return fc.tuple(body, fc.nat(), fc.nat(), fc.constantFrom(...LONE_SURROGATES), fc.constantFrom(...JSON_TYPES)).map(([value, which, at, bad, type]) => {
    const leaves = stringLeaves(value);
    if (leaves.length === 0) return undefined;
    const path = leaves[which % leaves.length];
    const text = path.reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], value) as string;
    const i = at % (text.length + 1);
    const poisoned = replaceAt(value, path, text.slice(0, i) + bad + text.slice(i));
    return {
      req: {
        method: op.method,
        url: op.path,
        auth: { form: 'raw' },
        contentType: type,
        body: utf8(toJson(poisoned)),
        headers: state.session ? { 'x-session-token': state.session } : undefined,
      },
      field: path.join('.'),
    };
  });
}

/** A short, printable account of a request for a failure message. */
export function describeRequest(req: FuzzRequest, apiKey: string): string {
  const body = req.body ? `${req.body.length} bytes: ${JSON.stringify(Buffer.from(req.body.subarray(0, 300)).toString('utf8'))}` : 'none';
  const auth = authorizationOf(req, apiKey);
  return `${req.method} ${req.url.slice(0, 300)} content-type=${JSON.stringify(req.contentType)} authorization=${JSON.stringify(auth?.slice(0, 80))} body=${body}`;
}
