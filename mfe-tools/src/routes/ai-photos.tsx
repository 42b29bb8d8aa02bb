import { showErrorToast, TOAST_MS } from '@aim/shared-kit/toast';
import { AiPhotosTool } from '../features/ai-photos/ai-photos-tool.tsx';
import { useAiPhotosGateway } from '../features/ai-photos/gateway.ts';

const notifyError = (message: string) => showErrorToast(message, TOAST_MS.short);

/** /dashboard/tools/ai-photos (?taskId=). */
export function AiPhotosRoute() {
  const gateway = useAiPhotosGateway();
  return <AiPhotosTool gateway={gateway} notifyError={notifyError} />;
}
