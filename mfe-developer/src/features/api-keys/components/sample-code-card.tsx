import { Box, Button, Card, Code, Field, HStack, NativeSelect, SegmentGroup, Stack, Tabs, Text } from '@aim/shared-kit/ui';
import { displayKey } from '../key-rules.ts';
import {
  buildSample,
  DEFAULT_REQUEST_TYPE,
  GENERATE_ENDPOINTS,
  LANGUAGES,
  REQUEST_TYPES,
  requestUrl,
  type EndpointId,
  type Language,
  type RequestType,
} from '../sample-code.ts';

type Props = {
  apiKey: string;
  revealed: boolean;
  baseUrl: string;
  language: Language;
  /** '' when the URL names none yet: the Generate sample is shown. */
  requestType: RequestType | '';
  /** What the Generate sample starts (the Endpoint chooser). */
  endpoint: EndpointId;
  onLanguageChange: (language: Language) => void;
  onRequestTypeChange: (requestType: RequestType) => void;
  onEndpointChange: (endpoint: EndpointId) => void;
  /** Receives the code with the real key, whatever the screen shows. */
  onCopy: (code: string) => Promise<void>;
};

const isLanguage = (value: string): value is Language => LANGUAGES.some((l) => l.id === value);
const languageLabel = (id: Language) => LANGUAGES.find((l) => l.id === id)!.label;
const isRequestType = (value: string | null): value is RequestType => REQUEST_TYPES.some((r) => r.id === value);
const isEndpoint = (value: string): value is EndpointId => GENERATE_ENDPOINTS.some((e) => e.id === value);

/**
 * Runnable samples of the APIFRAME v1 calls with the user's key, per language: Generate starts a
 * task on the chosen endpoint (POST /imagine, /flux-imagine, … /faceswap), Fetch reads it (POST /fetch).
 */
export function SampleCodeCard(props: Props) {
  const { apiKey, revealed, baseUrl, language, requestType, endpoint, onLanguageChange, onRequestTypeChange, onEndpointChange, onCopy } = props;
  const type = requestType || DEFAULT_REQUEST_TYPE;
  const sample = { language, requestType: type, endpoint, baseUrl };
  const shown = buildSample({ ...sample, apiKey: displayKey(apiKey, revealed) });

  return (
    <Card.Root variant="outline" data-testid="sample-code-card">
      <Card.Header>
        <Card.Title as="h2">Sample code</Card.Title>
        <Card.Description>Start a task on any model through the v1 paths, then read its result with POST /fetch. Each sample runs as is.</Card.Description>
      </Card.Header>
      <Card.Body gap="4">
        <Tabs.Root value={language} onValueChange={(e) => isLanguage(e.value) && onLanguageChange(e.value)} variant="line" colorPalette="brand">
          <HStack justify="space-between" wrap="wrap" gap="3" align="end">
            <Tabs.List aria-label="Language" borderBottomWidth="0">
              {LANGUAGES.map((l) => (
                <Tabs.Trigger key={l.id} value={l.id}>
                  {l.label}
                </Tabs.Trigger>
              ))}
            </Tabs.List>
            <SegmentGroup.Root
              size="sm"
              value={type}
              onValueChange={(e) => isRequestType(e.value) && onRequestTypeChange(e.value)}
              aria-label="Request type"
              data-testid="request-type"
            >
              <SegmentGroup.Indicator />
              <SegmentGroup.Items items={REQUEST_TYPES.map((r) => ({ value: r.id, label: r.label }))} />
            </SegmentGroup.Root>
          </HStack>
          {/* One panel that follows the selected tab: the code is derived, nothing to keep per tab. */}
          <Tabs.Content value={language} pt="4">
            <Stack gap="3">
              {type === 'generate' && (
                <Field.Root maxW="xs">
                  <Field.Label>Endpoint</Field.Label>
                  <NativeSelect.Root size="sm">
                    <NativeSelect.Field
                      value={endpoint}
                      onChange={(e) => isEndpoint(e.currentTarget.value) && onEndpointChange(e.currentTarget.value)}
                      data-testid="sample-endpoint-select"
                    >
                      {GENERATE_ENDPOINTS.map((e) => (
                        <option key={e.id} value={e.id}>
                          {e.label} ({e.path})
                        </option>
                      ))}
                    </NativeSelect.Field>
                    <NativeSelect.Indicator />
                  </NativeSelect.Root>
                </Field.Root>
              )}
              <HStack justify="space-between" wrap="wrap" gap="2">
                <Text textStyle="sm" color="fg.muted">
                  <Code size="sm" data-testid="sample-endpoint">
                    POST {requestUrl(baseUrl, type, endpoint)}
                  </Code>
                </Text>
                <Button size="sm" variant="outline" onClick={() => void onCopy(buildSample({ ...sample, apiKey }))}>
                  Copy code
                </Button>
              </HStack>
              <Box
                as="pre"
                tabIndex={0}
                aria-label={`${languageLabel(language)} sample`}
                data-testid="sample-code"
                data-language={language}
                data-request-type={type}
                data-endpoint={type === 'generate' ? endpoint : undefined}
                fontFamily="mono"
                textStyle="xs"
                lineHeight="1.7"
                p="4"
                rounded="l2"
                borderWidth="1px"
                bg="bg.subtle"
                overflowX="auto"
                whiteSpace="pre"
                focusRing="outside"
              >
                {shown}
              </Box>
              {!revealed && (
                <Text textStyle="xs" color="fg.muted">
                  The key is masked here; Copy code puts the real key in your clipboard.
                </Text>
              )}
            </Stack>
          </Tabs.Content>
        </Tabs.Root>
      </Card.Body>
    </Card.Root>
  );
}
