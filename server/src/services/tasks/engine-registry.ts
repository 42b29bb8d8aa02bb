/**
 * @module Which engine runs which kind of job. The API uses it to pick a task's queue (the
 * engine's name) at submit time; the worker to find the engine of a claimed job. Both
 * processes build it from the same configuration.
 */
import type { Engine, EngineJobKind } from '../../engines/engine.ts';

export interface EngineRegistry {
  /** The name of the engine (= the job queue) for a kind, or undefined when none runs it. */
  route(kind: EngineJobKind): string | undefined;
  /** True when the engine `route` picks for a kind only simulates it (procedural stand-ins). */
  isSimulated(kind: EngineJobKind): boolean;
  get(name: string): Engine | undefined;
  readonly names: readonly string[];
}

/**
 * Earlier engines win: `[midjourneyProxy, local]` sends Midjourney kinds upstream and the
 * rest (flux, ideogram) to the local engine.
 *
 * @example
 * const engines = createEngineRegistry([createLocalEngine()])
 * engines.route('imagine') // 'local'
 */
export function createEngineRegistry(engines: readonly Engine[]): EngineRegistry {
  const byName = new Map(engines.map((engine) => [engine.name, engine]));
  const engineFor = (kind: EngineJobKind) => engines.find((engine) => engine.supports(kind));
  return {
    route: (kind) => engineFor(kind)?.name,
    isSimulated: (kind) => engineFor(kind)?.simulatedKinds?.includes(kind) ?? false,
    get: (name) => byName.get(name),
    names: [...byName.keys()],
  };
}
