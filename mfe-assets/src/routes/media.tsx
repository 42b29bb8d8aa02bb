import { useSession } from '@aim/shared-kit/session';
import { TOAST_MS, toaster } from '@aim/shared-kit/toast';
import { useMediaGateway } from '../features/media/gateway.ts';
import { MediaPage } from '../features/media/media-page.tsx';
import type { MediaKind } from '../features/media/media-rules.ts';

const notifyError = (title: string) => toaster.create({ type: 'error', title, duration: TOAST_MS.short });

/** /dashboard/assets/videos and /dashboard/assets/audio. */
export function MediaRoute({ kind }: { kind: MediaKind }) {
  const gateway = useMediaGateway();
  const { session } = useSession();
  // a fresh page per kind: switching between the galleries starts from their own defaults
  return <MediaPage key={kind} kind={kind} gateway={gateway} email={session?.user.email ?? null} notifyError={notifyError} />;
}
