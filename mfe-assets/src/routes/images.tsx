import { useSession } from '@aim/shared-kit/session';
import { TOAST_MS, toaster } from '@aim/shared-kit/toast';
import { useImagesGateway } from '../features/images/gateway.ts';
import { ImagesPage } from '../features/images/images-page.tsx';

const notifyError = (title: string) => toaster.create({ type: 'error', title, duration: TOAST_MS.short });

/** /dashboard/assets/images. */
export function ImagesRoute() {
  const gateway = useImagesGateway();
  const { session } = useSession();
  return <ImagesPage gateway={gateway} email={session?.user.email ?? null} notifyError={notifyError} />;
}
