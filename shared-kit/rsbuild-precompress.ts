import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/**
 * Precompressed copies of a build: next to every text asset of dist/ (`x.js`), `x.js.br`
 * (brotli 11) and `x.js.gz` (gzip 9), made once at build time so no server compresses on the
 * fly. The embedded static server (server/src/static-sites.ts) and a CDN serve them with
 * Content-Encoding and Vary: Accept-Encoding (docs/operations/previews-and-deploys.md, "CDN layout").
 * Images, fonts and media are already compressed: left alone.
 */
const COMPRESSIBLE = /\.(?:js|mjs|cjs|css|html|json|svg|txt|map|wasm|xml|ico)$/;

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

/** Writes `<file>.br` and `<file>.gz` beside one file (also what preview-build.mjs redoes after stamping the manifest). */
export async function precompressFile(file: string): Promise<void> {
  const body = await readFile(file);
  const [br, gzipped] = await Promise.all([
    brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    gz(body, { level: 9 }),
  ]);
  await Promise.all([writeFile(`${file}.br`, br), writeFile(`${file}.gz`, gzipped)]);
}

/** Precompresses every compressible file under `dir`; returns how many files and their bytes (raw, br, gzip). */
export async function precompressDir(dir: string) {
  // deepest first, the top folder's own files last: creating those changes the folder's mtime,
  // which is how the embedded static server (static-sites.ts) sees a new build, so it lists the
  // folder again only once every copy exists
  const depth = (f: string) => path.relative(dir, f).split(path.sep).length;
  const files = (await filesUnder(dir)).filter((f) => COMPRESSIBLE.test(f)).sort((a, b) => depth(b) - depth(a));
  const totals = { files: files.length, raw: 0, br: 0, gzip: 0 };
  // a few at a time: brotli 11 is CPU-bound and the machine builds several packages at once
  for (let i = 0; i < files.length; i += 4) {
    await Promise.all(files.slice(i, i + 4).map(precompressFile));
  }
  for (const f of files) {
    totals.raw += (await stat(f)).size;
    totals.br += (await stat(`${f}.br`)).size;
    totals.gzip += (await stat(`${f}.gz`)).size;
  }
  return totals;
}

/** The part of Rsbuild's plugin API used here (shared-kit does not depend on @rsbuild/core). */
interface PluginApi {
  onAfterBuild(fn: (params: { environments: Record<string, { distPath: string }> }) => Promise<void>): void;
  logger: { info(message: string): void };
}

/** The Rsbuild plugin: after a production build, precompresses each environment's output folder. */
export function pluginPrecompress(): { name: string; setup(api: PluginApi): void } {
  return {
    name: 'aim:precompress',
    setup(api) {
      api.onAfterBuild(async ({ environments }) => {
        const dirs = new Set(Object.values(environments).map((e) => e.distPath));
        for (const dir of dirs) {
          const t = await precompressDir(dir);
          const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
          api.logger.info(
            `precompressed ${t.files} files in ${path.relative(process.cwd(), dir) || '.'}: ${kib(t.raw)} -> br ${kib(t.br)}, gzip ${kib(t.gzip)}`,
          );
        }
      });
    },
  };
}
