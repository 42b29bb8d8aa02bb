// The sample-code generator of the API Keys page (spec §2, §9): the API's calls, on their
// APIFRAME v1 paths, written in each sample language. Pure, so every sample can be executed or
// parsed by the tests.

export const LANGUAGES = [
  { id: 'nodejs', label: 'Node.js' },
  { id: 'python', label: 'Python' },
  { id: 'php', label: 'Php' },
  { id: 'curl', label: 'CURL' },
] as const;

export type Language = (typeof LANGUAGES)[number]['id'];

export const REQUEST_TYPES = [
  { id: 'generate', label: 'Generate' },
  { id: 'fetch', label: 'Fetch' },
] as const;

export type RequestType = (typeof REQUEST_TYPES)[number]['id'];

const DEFAULT_LANGUAGE: Language = 'nodejs';
/** An empty requestType parameter (the spec's default) shows the Generate sample. */
export const DEFAULT_REQUEST_TYPE: RequestType = 'generate';

export const SAMPLE_PROMPT = 'a lighthouse on a cliff at sunset, oil painting';
export const VIDEO_PROMPT = 'a slow camera move over a lighthouse at sunset';
export const SONG_PROMPT = 'a calm acoustic folk song about a lighthouse keeper, guitar and soft vocals';
/** Stands for the task_id a Generate call answered; the reader replaces it. */
export const TASK_ID_PLACEHOLDER = 'YOUR_TASK_ID';

/** A value of a sample's JSON body: each writer turns it into its language's literal. */
type BodyValue = string | number | boolean;
export type RequestBody = Readonly<Record<string, BodyValue>>;

const FETCH_PATH = '/fetch';

/**
 * What the Generate sample can start: one submission per media family, each with a minimal body
 * the server's own request schema accepts (server/src/routes: midjourney-v1.ts, image-models.ts,
 * video.ts, audio.ts, tasks.ts). Exported whole so a server test can post every body.
 */
export const GENERATE_ENDPOINTS = [
  {
    id: 'midjourney',
    label: 'Midjourney',
    path: '/imagine',
    body: { prompt: SAMPLE_PROMPT, aspect_ratio: '1:1' },
    purpose: [
      'Start a Midjourney grid of 4 images from a prompt; the answer carries its task_id.',
      'Poll POST /fetch with it until status is finished: image_urls lists the 4 images.',
    ],
  },
  {
    id: 'flux',
    label: 'Flux',
    path: '/flux-imagine',
    body: { model: 'flux-schnell', prompt: SAMPLE_PROMPT, width: 1024, height: 1024 },
    purpose: [
      'Start one Flux image from a prompt; the answer carries its task_id.',
      'Poll POST /fetch with it until status is finished: image_url is the image.',
    ],
  },
  {
    id: 'ideogram',
    label: 'Ideogram',
    path: '/ideogram-imagine',
    body: { prompt: SAMPLE_PROMPT, aspect_ratio: 'ASPECT_1_1' },
    purpose: [
      'Start Ideogram images from a prompt; the answer carries its task_id.',
      'Poll POST /fetch with it until status is finished: image_urls lists the images.',
    ],
  },
  {
    id: 'luma',
    label: 'Luma video',
    path: '/luma-imagine',
    body: { prompt: VIDEO_PROMPT, aspect_ratio: '16:9' },
    purpose: [
      'Start a Luma video from a prompt; the answer carries its task_id.',
      'Poll POST /fetch with it until status is finished: video_url is the video (MP4).',
    ],
  },
  {
    id: 'kling',
    label: 'Kling video',
    path: '/kling-imagine',
    body: { prompt: VIDEO_PROMPT, generation_type: 'text2video', duration: 5, aspect_ratio: '16:9' },
    purpose: [
      'Start a 5-second Kling video from a prompt; the answer carries its task_id.',
      'Poll POST /fetch with it until status is finished: video_url is the video (MP4).',
    ],
  },
  {
    id: 'runway',
    label: 'Runway video',
    path: '/runway-imagine',
    body: { prompt: VIDEO_PROMPT, generation_type: 'text2video', duration: 5, aspect_ratio: '16:9' },
    purpose: [
      'Start a 5-second Runway video from a prompt; the answer carries its task_id.',
      'Poll POST /fetch with it until status is finished: video_url is the video (MP4).',
    ],
  },
  {
    id: 'suno',
    label: 'Suno song',
    path: '/suno-imagine',
    body: { prompt: SONG_PROMPT, make_instrumental: false },
    purpose: [
      'Start two Suno songs from a description; the answer carries its task_id.',
      'Poll POST /fetch with it until status is finished: songs lists them, each with its audio_url.',
    ],
  },
  {
    id: 'udio',
    label: 'Udio song',
    path: '/udio-imagine',
    body: { prompt: SONG_PROMPT },
    purpose: [
      'Start two Udio songs from a description; the answer carries its task_id.',
      'Poll POST /fetch with it until status is finished: songs lists them, each with its audio_url.',
    ],
  },
  {
    id: 'faceswap',
    label: 'Faceswap',
    path: '/faceswap',
    body: { swap_image_url: 'https://example.com/face.jpg', target_image_url: 'https://example.com/photo.jpg' },
    purpose: [
      'Start a faceswap: the face of swap_image_url put onto target_image_url; the answer carries its task_id.',
      'Replace both URLs by your own images (e.g. the imageURL POST /upload answers for a file).',
      'Poll POST /fetch with it until status is finished: image_url is the new picture.',
    ],
  },
] as const satisfies readonly { id: string; label: string; path: string; body: RequestBody; purpose: readonly string[] }[];

export type EndpointId = (typeof GENERATE_ENDPOINTS)[number]['id'];
type Endpoint = (typeof GENERATE_ENDPOINTS)[number];

/** A missing or unknown endpoint parameter shows Midjourney's /imagine. */
const DEFAULT_ENDPOINT: EndpointId = 'midjourney';

const FETCH_PURPOSE = [
  `Read a task's status and result. Replace ${TASK_ID_PLACEHOLDER} with the task_id a Generate call (e.g. POST /imagine) answered.`,
  'Poll every few seconds until status is finished (or failed); the result is in image_urls, image_url, video_url or songs.',
];

/** ?language= : one of the four ids in any case, anything else the default. */
export function parseLanguage(value: string | null | undefined): Language {
  const v = (value ?? '').toLowerCase();
  return LANGUAGES.find((l) => l.id === v)?.id ?? DEFAULT_LANGUAGE;
}

/** ?requestType= : 'generate', 'fetch' or '' (not chosen yet). */
export function parseRequestType(value: string | null | undefined): RequestType | '' {
  const v = (value ?? '').toLowerCase();
  return REQUEST_TYPES.find((r) => r.id === v)?.id ?? '';
}

/** ?endpoint= : one of the GENERATE_ENDPOINTS ids in any case, anything else midjourney. */
export function parseEndpoint(value: string | null | undefined): EndpointId {
  const v = (value ?? '').toLowerCase();
  return GENERATE_ENDPOINTS.find((e) => e.id === v)?.id ?? DEFAULT_ENDPOINT;
}

function endpointOf(id: EndpointId): Endpoint {
  return GENERATE_ENDPOINTS.find((e) => e.id === id)!;
}

export type SampleInput = {
  language: Language;
  requestType: RequestType;
  /** Which submission the Generate sample makes; the Fetch sample ignores it. Default midjourney. */
  endpoint?: EndpointId;
  /** The provider API's base URL (runtime config apiBaseUrl). */
  baseUrl: string;
  /** The key written into the code: the real one for the clipboard, a masked one for the screen. */
  apiKey: string;
};

/** The JSON body a request sends: the endpoint's for Generate, `{ task_id }` for Fetch. */
export function requestBody(type: RequestType, endpoint: EndpointId = DEFAULT_ENDPOINT): RequestBody {
  return type === 'generate' ? endpointOf(endpoint).body : { task_id: TASK_ID_PLACEHOLDER };
}

export function requestUrl(baseUrl: string, type: RequestType, endpoint: EndpointId = DEFAULT_ENDPOINT): string {
  return baseUrl.replace(/\/+$/, '') + (type === 'generate' ? endpointOf(endpoint).path : FETCH_PATH);
}

export function buildSample(input: SampleInput): string {
  const endpoint = input.endpoint ?? DEFAULT_ENDPOINT;
  const spec: RequestSpec = {
    url: requestUrl(input.baseUrl, input.requestType, endpoint),
    apiKey: input.apiKey,
    body: requestBody(input.requestType, endpoint),
    purpose: input.requestType === 'generate' ? endpointOf(endpoint).purpose : FETCH_PURPOSE,
  };
  return `${WRITERS[input.language](spec).join('\n')}\n`;
}

type RequestSpec = { url: string; apiKey: string; body: RequestBody; purpose: readonly string[] };

// A JSON string literal is a valid Python string literal (same escapes).
const pyString = (value: string) => JSON.stringify(value);
const jsString = (value: string) =>
  `'${value
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')}'`;
const phpString = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const shellString = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

// A finite number is written the same way in JSON, JavaScript, Python and PHP.
const numberLiteral = (value: number) => {
  if (!Number.isFinite(value)) throw new RangeError(`A sample body holds ${value}, which JSON cannot carry`);
  return JSON.stringify(value);
};

/** Each language's literal of a body value: strings escaped, numbers as is, booleans in its spelling. */
const jsValue = (v: BodyValue) => (typeof v === 'string' ? jsString(v) : typeof v === 'number' ? numberLiteral(v) : String(v));
const pyValue = (v: BodyValue) => (typeof v === 'string' ? pyString(v) : typeof v === 'number' ? numberLiteral(v) : v ? 'True' : 'False');
const phpValue = (v: BodyValue) => (typeof v === 'string' ? phpString(v) : typeof v === 'number' ? numberLiteral(v) : String(v));
// An object key that is not an identifier is quoted.
const jsKey = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : jsString(key));

const comments = (prefix: string, lines: readonly string[]) => lines.map((line) => `${prefix} ${line}`);

const WRITERS: Record<Language, (spec: RequestSpec) => string[]> = {
  nodejs: ({ url, apiKey, body, purpose }) => [
    ...comments('//', purpose),
    '// Node.js 18 or later (built-in fetch): node sample.mjs',
    `const API_KEY = ${jsString(apiKey)};`,
    '',
    'async function main() {',
    `  const response = await fetch(${jsString(url)}, {`,
    "    method: 'POST',",
    '    headers: {',
    '      Authorization: API_KEY,',
    "      'Content-Type': 'application/json',",
    '    },',
    '    body: JSON.stringify({',
    ...Object.entries(body).map(([k, v]) => `      ${jsKey(k)}: ${jsValue(v)},`),
    '    }),',
    '  });',
    '  const data = await response.json();',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: this is the sample's own template literal
    '  if (!response.ok) throw new Error(data.errors?.[0]?.msg ?? `HTTP ${response.status}`);',
    '  console.log(JSON.stringify(data, null, 2));',
    '}',
    '',
    'main().catch((error) => {',
    '  console.error(error.message);',
    '  process.exitCode = 1;',
    '});',
  ],

  python: ({ url, apiKey, body, purpose }) => [
    ...comments('#', purpose),
    '# Python 3, standard library only: python3 sample.py',
    'import json',
    'import urllib.error',
    'import urllib.request',
    '',
    `API_KEY = ${pyString(apiKey)}`,
    '',
    'request = urllib.request.Request(',
    `    ${pyString(url)},`,
    '    method="POST",',
    '    headers={"Authorization": API_KEY, "Content-Type": "application/json"},',
    '    data=json.dumps({',
    ...Object.entries(body).map(([k, v]) => `        ${pyString(k)}: ${pyValue(v)},`),
    '    }).encode("utf-8"),',
    ')',
    '',
    'try:',
    '    with urllib.request.urlopen(request, timeout=30) as response:',
    '        print(json.dumps(json.load(response), indent=2))',
    'except urllib.error.HTTPError as error:',
    '    print(error.code, error.read().decode("utf-8"))',
    '    raise SystemExit(1)',
  ],

  php: ({ url, apiKey, body, purpose }) => [
    '<?php',
    ...comments('//', purpose),
    '// PHP 7.3 or later with the curl extension: php sample.php',
    `$apiKey = ${phpString(apiKey)};`,
    '',
    `$ch = curl_init(${phpString(url)});`,
    'curl_setopt_array($ch, [',
    '    CURLOPT_POST => true,',
    '    CURLOPT_RETURNTRANSFER => true,',
    '    CURLOPT_HTTPHEADER => [',
    "        'Authorization: ' . $apiKey,",
    "        'Content-Type: application/json',",
    '    ],',
    '    CURLOPT_POSTFIELDS => json_encode([',
    ...Object.entries(body).map(([k, v]) => `        ${phpString(k)} => ${phpValue(v)},`),
    '    ]),',
    ']);',
    '',
    '$response = curl_exec($ch);',
    'if ($response === false) {',
    '    fwrite(STDERR, curl_error($ch) . PHP_EOL);',
    '    exit(1);',
    '}',
    '$status = curl_getinfo($ch, CURLINFO_RESPONSE_CODE);',
    'echo json_encode(json_decode($response), JSON_PRETTY_PRINT) . PHP_EOL;',
    'exit($status >= 400 ? 1 : 0);',
  ],

  // No comment line: interactive zsh (macOS's default shell) runs '#' as a command.
  curl: ({ url, apiKey, body }) => [
    `curl -X POST ${shellString(url)} \\`,
    `  -H ${shellString(`Authorization: ${apiKey}`)} \\`,
    "  -H 'Content-Type: application/json' \\",
    `  -d ${shellString(JSON.stringify(body))}`,
  ],
};
