import { useRef, useState } from 'react';
import { DialogShell } from '@aim/shared-kit/dialog-shell';
import { Button, Dialog, Input, Stack, Text } from '@aim/shared-kit/ui';
import { ACCEPTED_IMAGE_TYPES } from '@aim/shared-kit/domain';
import { isAcceptedImage, UNSUPPORTED_IMAGE_MESSAGE } from '../../tasks/task-rules.ts';
import { INSECURE_UPLOAD_URL_MESSAGE, shouldShowUploadUrl } from '../prompt-rules.ts';

type Props = {
  upload: (file: File) => Promise<string>;
  /** The runtime config's mode; embedded mode shows http URLs too (see prompt-rules.ts). */
  mode: string;
  disabled: boolean;
  notifyError: (message: string) => void;
  onUseInPrompt: (url: string) => void;
};

type Outcome = { url: string; shown: boolean } | null;

/** Uploads a reference image (POST /upload) and shows the URL it answers in a dialog. */
export function UploadImage({ upload, mode, disabled, notifyError, onUseInPrompt }: Props) {
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [copied, setCopied] = useState(false);

  async function onFile(file: File | undefined) {
    if (input.current) input.current.value = '';
    if (!file) return;
    if (!isAcceptedImage(file)) {
      notifyError(UNSUPPORTED_IMAGE_MESSAGE);
      return;
    }
    setBusy(true);
    try {
      const url = await upload(file);
      setCopied(false);
      setOutcome({ url, shown: shouldShowUploadUrl(url, mode) });
    } catch {
      // The API client has already shown the server's message.
    } finally {
      setBusy(false);
    }
  }

  async function copy(url: string) {
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
    } catch {
      notifyError('Failed to copy');
    }
  }

  return (
    <>
      <input
        ref={input}
        type="file"
        accept={ACCEPTED_IMAGE_TYPES.join(',')}
        hidden
        data-testid="upload-input"
        onChange={(e) => void onFile(e.currentTarget.files?.[0])}
      />
      <Button variant="outline" loading={busy} loadingText="Uploading..." disabled={disabled} onClick={() => input.current?.click()}>
        Upload image
      </Button>
      <DialogShell open={outcome !== null} onClose={() => setOutcome(null)} title="Image uploaded" testId="upload-dialog">
        <Dialog.Body>
          {outcome?.shown ? (
            <Stack gap="2">
              <Text color="fg.muted">Use this URL in a prompt to guide the picture.</Text>
              <Input readOnly value={outcome.url} aria-label="Image URL" data-testid="upload-url" onFocus={(e) => e.currentTarget.select()} />
            </Stack>
          ) : (
            <Text data-testid="upload-url-hidden">{INSECURE_UPLOAD_URL_MESSAGE}</Text>
          )}
        </Dialog.Body>
        <Dialog.Footer>
          {outcome?.shown && (
            <>
              <Button variant="outline" onClick={() => void copy(outcome.url)}>
                {copied ? 'Copied' : 'Copy URL'}
              </Button>
              <Button
                colorPalette="brand"
                onClick={() => {
                  onUseInPrompt(outcome.url);
                  setOutcome(null);
                }}
              >
                Add to prompt
              </Button>
            </>
          )}
          {!outcome?.shown && (
            <Button variant="outline" onClick={() => setOutcome(null)}>
              Close
            </Button>
          )}
        </Dialog.Footer>
      </DialogShell>
    </>
  );
}
