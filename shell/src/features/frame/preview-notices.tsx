import { useState } from 'react';
import { Alert, Badge, Button, CloseButton, HStack, Link, Stack, Text } from '@aim/shared-kit/ui';
import { PREVIEW_STORAGE_KEY, stripPreviewParams, type PreviewResult } from '../../mf/preview.ts';

/** A preview runs code that is not the released build: always say so, and offer the way back. */
export function PreviewNotices({ preview }: { preview: PreviewResult }) {
  const [showRefused, setShowRefused] = useState(preview.refused.length > 0);
  if (preview.active.length === 0 && !showRefused) return null;

  function reset() {
    sessionStorage.removeItem(PREVIEW_STORAGE_KEY);
    window.location.replace(stripPreviewParams(window.location.href));
  }

  return (
    <Stack position="fixed" bottom="4" left="50%" transform="translateX(-50%)" zIndex="toast" gap="2" maxW="calc(100vw - 32px)">
      {preview.active.length > 0 && (
        <HStack data-testid="preview-badge" bg="orange.solid" color="orange.contrast" px="3" py="2" rounded="md" shadow="lg" gap="3">
          <Badge colorPalette="orange" variant="surface">
            Preview
          </Badge>
          <Stack gap="0">
            {preview.active.map((o) => (
              <Text key={o.name} fontSize="sm" data-testid={`preview-${o.name}`}>
                {o.name} → {o.url}
              </Text>
            ))}
          </Stack>
          {/* outside the router (App renders this next to it): a plain link, the override is kept for the tab */}
          <Link href="/dashboard/diagnostics" color="inherit" textDecoration="underline" fontSize="sm" data-testid="preview-diagnostics">
            Diagnostics
          </Link>
          <Button size="xs" variant="surface" colorPalette="orange" onClick={reset} data-testid="preview-reset">
            Reset
          </Button>
        </HStack>
      )}
      {showRefused && (
        <Alert.Root status="warning" data-testid="preview-refused" shadow="lg">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Preview refused</Alert.Title>
            {preview.refused.map((r) => (
              <Alert.Description key={r.name}>
                {r.name} → {r.url}: {r.reason}.
              </Alert.Description>
            ))}
          </Alert.Content>
          <CloseButton size="sm" aria-label="Dismiss" onClick={() => setShowRefused(false)} />
        </Alert.Root>
      )}
    </Stack>
  );
}
