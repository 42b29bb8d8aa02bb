// Entry of the face worker thread. Workers start without the parent's TypeScript loader when
// the parent runs under vitest, so load the TypeScript module through tsx's scoped import
// (works the same under `tsx src/main.ts`).
import { tsImport } from 'tsx/esm/api';

await tsImport('./face-worker.ts', import.meta.url);
