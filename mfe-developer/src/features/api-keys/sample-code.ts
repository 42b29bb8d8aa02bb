// The sample-code generator of the API Keys page (spec §2, §9): the same two API calls written in
// each sample language. Pure, so every sample can be executed or parsed by the tests.

export const LANGUAGES = [
  { id: 'nodejs', label: 'Node.js' },
  { id: 'python', label: 'Python' },
  { id: 'php', label: 'Php' },
  { id: 'curl', label: 'CURL' },
] as const;

export type Language = (typeof LANGUAGES)[number]['id'];

export const REQUEST_TYPES = [
  { id: 'generate', label: 'Generate', path: '/pro/imagine' },
  { id: 'fetch', label: 'Fetch', path: '/fetch' },
] as const;

export type RequestType = (typeof REQUEST_TYPES)[number]['id'];

const DEFAULT_LANGUAGE: Language = 'nodejs';
/** An empty requestType parameter (the spec's default) shows the Generate sample. */
export const DEFAULT_REQUEST_TYPE: RequestType = 'generate';

export const SAMPLE_PROMPT = 'a lighthouse on a cliff at sunset, oil painting';
/** Stands for the task_id a Generate call answered; the reader replaces it. */
export const TASK_ID_PLACEHOLDER = 'YOUR_TASK_ID';

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

function requestPath(type: RequestType): string {
  return REQUEST_TYPES.find((r) => r.id === type)!.path;
}

export type SampleInput = {
  language: Language;
  requestType: RequestType;
  /** The provider API's base URL (runtime config apiBaseUrl). */
  baseUrl: string;
  /** The key written into the code: the real one for the clipboard, a masked one for the screen. */
  apiKey: string;
};

/** The JSON body each request type sends. */
export function requestBody(type: RequestType): Record<string, string> {
  return type === 'generate' ? { prompt: SAMPLE_PROMPT } : { task_id: TASK_ID_PLACEHOLDER };
}

export function requestUrl(baseUrl: string, type: RequestType): string {
  return baseUrl.replace(/\/+$/, '') + requestPath(type);
}

export function buildSample(input: SampleInput): string {
  const spec: RequestSpec = {
    url: requestUrl(input.baseUrl, input.requestType),
    apiKey: input.apiKey,
    body: requestBody(input.requestType),
    purpose:
      input.requestType === 'generate'
        ? 'Start a 4-image generation; the answer carries its task_id.'
        : `Read a task's status and result. Replace ${TASK_ID_PLACEHOLDER} with the task_id from /pro/imagine.`,
  };
  return `${WRITERS[input.language](spec).join('\n')}\n`;
}

type RequestSpec = { url: string; apiKey: string; body: Record<string, string>; purpose: string };

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

const WRITERS: Record<Language, (spec: RequestSpec) => string[]> = {
  nodejs: ({ url, apiKey, body, purpose }) => [
    `// ${purpose}`,
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
    ...Object.entries(body).map(([k, v]) => `      ${k}: ${jsString(v)},`),
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
    `# ${purpose}`,
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
    ...Object.entries(body).map(([k, v]) => `        ${pyString(k)}: ${pyString(v)},`),
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
    `// ${purpose}`,
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
    ...Object.entries(body).map(([k, v]) => `        ${phpString(k)} => ${phpString(v)},`),
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
