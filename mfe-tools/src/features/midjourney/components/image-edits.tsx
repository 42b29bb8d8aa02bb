import type { ReactNode } from 'react';
import { Button, Grid, HStack, IconButton, Stack, Text, Wrap } from '@aim/shared-kit/ui';
import { FURTHER_UPSCALES, PAN_DIRECTIONS, type PanDirection, type UpscaleType, VARY_TYPES, type VaryType, ZOOM_OUTS } from '../task-model.ts';
import { LineIcon } from './icons.tsx';

type ImageEditsProps = {
  /** upscale#N only: Upscale (Subtle)/(Creative), 2x, 4x. */
  withUpscales: boolean;
  busyKey: string | null;
  /** A task is being created: every edit waits. */
  disabled: boolean;
  onUpscale: (type: UpscaleType) => void;
  onVary: (type: VaryType) => void;
  onVaryRegion: () => void;
  onZoomOut: (ratio: number) => void;
  onCustomZoom: () => void;
  onPan: (direction: PanDirection) => void;
};

const PAN_PLACE: Record<PanDirection, { gridColumn: number; gridRow: number }> = {
  up: { gridColumn: 2, gridRow: 1 },
  left: { gridColumn: 1, gridRow: 2 },
  right: { gridColumn: 3, gridRow: 2 },
  down: { gridColumn: 2, gridRow: 3 },
};

const PAN_LABEL: Record<PanDirection, string> = { up: 'Pan up', down: 'Pan down', left: 'Pan left', right: 'Pan right' };

/**
 * What an upscaled image can become, each a new task (spec §4): vary it (strong, subtle, or one
 * region), zoom out, pan one way; an upscale#N can also be upscaled again. Pan, zoom out and
 * vary answer a new grid.
 */
export function ImageEdits({ withUpscales, busyKey, disabled, onUpscale, onVary, onVaryRegion, onZoomOut, onCustomZoom, onPan }: ImageEditsProps) {
  return (
    <Stack gap="3" data-testid="image-edits">
      {withUpscales && (
        <EditGroup label="Upscale">
          {FURTHER_UPSCALES.map(({ type, label }) => (
            <Button key={type} size="xs" variant="subtle" loading={busyKey === `upscale-${type}`} disabled={disabled} onClick={() => onUpscale(type)}>
              {label}
            </Button>
          ))}
        </EditGroup>
      )}
      <EditGroup label="Vary">
        {VARY_TYPES.map(({ type, label }) => (
          <Button key={type} size="xs" variant="subtle" loading={busyKey === `vary-${type}`} disabled={disabled} onClick={() => onVary(type)}>
            {label}
          </Button>
        ))}
        <Button size="xs" variant="subtle" loading={busyKey === 'region'} disabled={disabled} onClick={onVaryRegion}>
          Vary (Region)
        </Button>
      </EditGroup>
      <EditGroup label="Zoom">
        {ZOOM_OUTS.map(({ ratio, label }) => (
          <Button key={ratio} size="xs" variant="subtle" loading={busyKey === `zoom-${ratio}`} disabled={disabled} onClick={() => onZoomOut(ratio)}>
            {label}
          </Button>
        ))}
        <Button size="xs" variant="subtle" loading={busyKey === 'zoom-custom'} disabled={disabled} onClick={onCustomZoom}>
          Custom Zoom
        </Button>
      </EditGroup>
      <EditGroup label="Pan">
        <Grid templateColumns="repeat(3, auto)" gap="1" w="fit-content">
          {PAN_DIRECTIONS.map((direction) => (
            <IconButton
              key={direction}
              size="xs"
              variant="subtle"
              aria-label={PAN_LABEL[direction]}
              title={PAN_LABEL[direction]}
              loading={busyKey === `pan-${direction}`}
              disabled={disabled}
              onClick={() => onPan(direction)}
              {...PAN_PLACE[direction]}
            >
              <LineIcon name={direction} />
            </IconButton>
          ))}
        </Grid>
      </EditGroup>
    </Stack>
  );
}

function EditGroup({ label, children }: { label: string; children: ReactNode }) {
  return (
    <HStack gap="3" align="center" role="group" aria-label={label}>
      <Text textStyle="xs" fontWeight="medium" color="fg.muted" minW="14" textTransform="uppercase" letterSpacing="wide" aria-hidden>
        {label}
      </Text>
      <Wrap gap="2" flex="1">
        {children}
      </Wrap>
    </HStack>
  );
}
