import { getRuntimeConfig } from '@aim/shared-kit/runtime-config';
import { showErrorToast, TOAST_MS } from '@aim/shared-kit/toast';
import { useMidjourneyGateway } from '../features/midjourney/gateway.ts';
import { MidjourneyTool } from '../features/midjourney/midjourney-tool.tsx';

const notifyError = (message: string) => showErrorToast(message, TOAST_MS.short);

/** /dashboard and /dashboard/tools/midjourney (?taskId=). */
export function MidjourneyRoute() {
  const gateway = useMidjourneyGateway();
  return <MidjourneyTool gateway={gateway} mode={getRuntimeConfig().mode} notifyError={notifyError} />;
}
