import { Component, Suspense, lazy, useState, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';
import { Alert, Button, HStack, Spinner, Text } from '@aim/shared-kit/ui';
import { loadRemote } from '@module-federation/enhanced/runtime';
import { getRuntimeConfig } from '@aim/shared-kit/runtime-config';
import { loadedRemote, type RemoteName } from './federation.ts';
import { remoteVerdict } from './remote-check.ts';

const DEFAULT_TIMEOUT_MS = 10_000;

class RemoteTimeoutError extends Error {}

type AnyComponent = ComponentType<Record<string, unknown>>;
const cache = new Map<string, LazyExoticComponent<AnyComponent>>();

/**
 * React.lazy keeps its result for the page's lifetime, a rejection included, so failed loads
 * drop their cache entry: the next mount (Retry, or navigating back) asks the MF runtime again,
 * which does not cache failed manifest fetches either.
 */
function remoteLazy(id: string, timeoutMs: number) {
  let component = cache.get(id);
  const ready = loadedRemote(id);
  if (!component && ready) {
    // Already loaded (a deep link's remote, warmed by initFederation): a thenable that resolves
    // synchronously lets React.lazy render it without suspending, in the same commit as the frame.
    const module = { default: ready.default as AnyComponent };
    // biome-ignore lint/suspicious/noThenProperty: React.lazy resolves a synchronous thenable without suspending
    component = lazy(() => ({ then: (resolve: (m: typeof module) => void) => resolve(module) }) as unknown as Promise<typeof module>);
    cache.set(id, component);
  }
  if (!component) {
    component = lazy(async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const mod = await Promise.race([
          loadRemote<{ default?: AnyComponent }>(id),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new RemoteTimeoutError(`${id} did not load within ${timeoutMs / 1000} s`)), timeoutMs);
          }),
        ]);
        if (!mod?.default) throw new Error(`${id} has no default export`);
        return { default: mod.default };
      } catch (err) {
        cache.delete(id);
        throw err;
      } finally {
        clearTimeout(timer);
      }
    });
    cache.set(id, component);
  }
  return component;
}

// What a person calls each part of the dashboard (the remote names are internal).
const REMOTE_LABELS: Partial<Record<RemoteName, string>> = {
  mfe_tools: 'Tools',
  mfe_assets: 'Assets',
  mfe_billing: 'Billing',
  mfe_developer: 'API & Logs',
  mfe_onboarding: 'Onboarding',
};

type BoundaryProps = { remote: RemoteName; compact: boolean; onRetry: () => void; children: ReactNode };

/** Catches load failures (manifest, entry, chunk, timeout) and render-time crashes of the remote. */
class RemoteBoundary extends Component<BoundaryProps, { error: Error | null }> {
  state = { error: null as Error | null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  componentDidCatch(error: Error) {
    console.warn(`[mf] ${this.props.remote} failed:`, error.message);
  }

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    const { remote, compact, onRetry } = this.props;
    const label = REMOTE_LABELS[remote] ?? remote;
    // Refused before its code ran (remote-check.ts): an incompatible build, which Retry cannot fix.
    const refused = remoteVerdict(remote)?.refused;
    if (refused) {
      return (
        <Alert.Root status="warning" data-testid={`remote-refused-${remote}`} width={compact ? 'auto' : 'full'} size={compact ? 'sm' : 'md'}>
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title title={compact ? refused : undefined}>{label} was not loaded: this build is not compatible with the dashboard.</Alert.Title>
            {!compact && <Alert.Description>{refused}.</Alert.Description>}
          </Alert.Content>
        </Alert.Root>
      );
    }
    const message = error instanceof RemoteTimeoutError ? `${label} is taking too long to load.` : `${label} could not be loaded right now.`;
    return (
      <Alert.Root status="error" data-testid={`remote-fallback-${remote}`} width={compact ? 'auto' : 'full'} size={compact ? 'sm' : 'md'}>
        <Alert.Indicator />
        <Alert.Content>
          <Alert.Title>{message}</Alert.Title>
          {!compact && (
            // the technical reason stays in the console (componentDidCatch) and the tooltip
            <Alert.Description title={error.message}>The rest of the dashboard keeps working. Try again in a moment.</Alert.Description>
          )}
        </Alert.Content>
        <Button size="sm" variant="outline" onClick={onRetry}>
          Retry
        </Button>
      </Alert.Root>
    );
  }
}

export type RemoteSlotProps = {
  remote: RemoteName;
  /** The exposed module, './App' unless the shell mounts a widget. */
  expose?: string;
  props?: Record<string, unknown>;
  /** Small inline fallbacks, for widgets that sit in the top bar. */
  compact?: boolean;
};

/** One remote in its own slot: its failures stay here and offer a Retry that re-mounts it. */
export function RemoteSlot({ remote, expose = './App', props = {}, compact = false }: RemoteSlotProps) {
  const id = `${remote}/${expose.replace(/^\.\//, '')}`;
  const [attempt, setAttempt] = useState(0);
  const timeoutMs = getRuntimeConfig().remoteTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const Remote = remoteLazy(id, timeoutMs);
  return (
    <RemoteBoundary
      key={`${id}#${attempt}`}
      remote={remote}
      compact={compact}
      onRetry={() => {
        cache.delete(id);
        setAttempt((n) => n + 1);
      }}
    >
      <Suspense
        fallback={
          <HStack data-testid={`remote-loading-${remote}`} role="status" aria-busy="true" gap="2" color="fg.muted" p={compact ? 0 : 2}>
            <Spinner size="sm" />
            {!compact && <Text>Loading...</Text>}
          </HStack>
        }
      >
        <Remote {...props} />
      </Suspense>
    </RemoteBoundary>
  );
}
