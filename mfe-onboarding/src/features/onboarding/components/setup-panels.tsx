import { Box, Circle, HStack, List, Stack, Text } from '@aim/shared-kit/ui';
import {
  AI_PHOTO_STEPS,
  finalPrompt,
  LANGUAGES,
  PROMPT_TEMPLATES,
  SAMPLE_TYPES,
  STYLES,
  type PromptTemplate,
  type SampleLanguage,
  type SampleType,
  type StyleId,
} from '../onboarding-model.ts';
import { ChoiceCards } from './choice-cards.tsx';

const TEMPLATE_OPTIONS = PROMPT_TEMPLATES.map((t) => ({ value: t, label: t }));

type DashboardProps = {
  template: PromptTemplate;
  style: StyleId;
  onTemplate: (template: PromptTemplate) => void;
  onStyle: (style: StyleId) => void;
  disabled: boolean;
};

export function DashboardSetup({ template, style, onTemplate, onStyle, disabled }: DashboardProps) {
  return (
    <Stack gap="6">
      <ChoiceCards
        label="Prompt template"
        options={TEMPLATE_OPTIONS}
        value={template}
        onChange={onTemplate}
        disabled={disabled}
        columns={{ base: 1, sm: 2 }}
        size="sm"
        testId="template"
      />
      <ChoiceCards label="Style" options={STYLES} value={style} onChange={onStyle} disabled={disabled} columns={3} size="sm" testId="style" />
      <Box borderWidth="1px" borderStyle="dashed" rounded="l2" px="4" py="3" bg="bg.subtle">
        <Text textStyle="xs" color="fg.muted" mb="1" id="final-prompt-label">
          Prompt to generate
        </Text>
        <Text textStyle="sm" fontFamily="mono" aria-labelledby="final-prompt-label" data-testid="final-prompt">
          {finalPrompt(template, style)}
        </Text>
      </Box>
    </Stack>
  );
}

type ApiProps = {
  requestType: SampleType;
  language: SampleLanguage;
  onRequestType: (value: SampleType) => void;
  onLanguage: (value: SampleLanguage) => void;
  disabled: boolean;
};

export function ApiSetup({ requestType, language, onRequestType, onLanguage, disabled }: ApiProps) {
  return (
    <Stack gap="6">
      <ChoiceCards
        label="Sample type"
        options={SAMPLE_TYPES}
        value={requestType}
        onChange={onRequestType}
        disabled={disabled}
        columns={{ base: 1, sm: 2 }}
        size="sm"
        testId="sample-type"
      />
      <ChoiceCards
        label="Language"
        options={LANGUAGES}
        value={language}
        onChange={onLanguage}
        disabled={disabled}
        columns={{ base: 2, sm: 4 }}
        size="sm"
        testId="language"
      />
      <Text textStyle="sm" color="fg.muted">
        The sample opens on the API Keys page, filled in with your API key.
      </Text>
    </Stack>
  );
}

export function AiPhotoSetup() {
  return (
    <List.Root as="ol" listStyleType="none" gap="4" data-testid="ai-photo-steps">
      {AI_PHOTO_STEPS.map((step, i) => (
        <List.Item key={step.title}>
          <HStack align="start" gap="3">
            <Circle size="8" flexShrink="0" bg="brand.subtle" color="brand.fg" borderWidth="1px" borderColor="brand.border" fontWeight="semibold" aria-hidden>
              {i + 1}
            </Circle>
            <Stack gap="0.5">
              <Text fontWeight="medium">
                <Text as="span" srOnly>{`${i + 1}. `}</Text>
                {step.title}
              </Text>
              <Text textStyle="sm" color="fg.muted">
                {step.description}
              </Text>
            </Stack>
          </HStack>
        </List.Item>
      ))}
    </List.Root>
  );
}
