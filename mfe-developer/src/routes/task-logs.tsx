import { useSession } from '@aim/shared-kit/session';
import { useTaskLogsGateway } from '../features/task-logs/gateway.ts';
import { TaskLogsPage } from '../features/task-logs/task-logs-page.tsx';

/** /dashboard/task-logs (?status=&type=&id=&page=&size=). */
export function TaskLogsRoute() {
  const gateway = useTaskLogsGateway();
  const { session } = useSession();
  return <TaskLogsPage gateway={gateway} email={session?.user.email ?? null} />;
}
