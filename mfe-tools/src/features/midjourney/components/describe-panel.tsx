import { Button, HStack, Stack } from '@aim/shared-kit/ui';
import { DESCRIBE_IMAGE_MESSAGE } from '../task-model.ts';
import { ImagePicker, usePickedImages } from './image-picker.tsx';

type DescribePanelProps = {
  busy: boolean;
  disabled: boolean;
  /** Uploads the picture and starts the describe task; true once the task exists. */
  onDescribe: (file: File) => Promise<boolean>;
};

/** Describe: one uploaded picture → a task answering four prompts that would picture it. */
export function DescribePanel({ busy, disabled, onDescribe }: DescribePanelProps) {
  const picked = usePickedImages(1, DESCRIBE_IMAGE_MESSAGE);
  const image = picked.images[0];

  async function describe() {
    if (!image) {
      picked.setError(DESCRIBE_IMAGE_MESSAGE);
      return;
    }
    if (await onDescribe(image.file)) picked.clear();
  }

  return (
    <Stack gap="3" data-testid="describe-panel">
      <ImagePicker
        label="Image to describe"
        hint="One jpeg, png, gif or webp picture. Describe answers four prompts for it."
        multiple={false}
        disabled={disabled || busy}
        images={picked.images}
        error={picked.error}
        onFiles={picked.add}
        onRemove={picked.remove}
        testId="describe"
      />
      <HStack justify="end">
        <Button colorPalette="brand" loading={busy} loadingText="Describing..." disabled={disabled} minW="32" onClick={() => void describe()}>
          Describe
        </Button>
      </HStack>
    </Stack>
  );
}
