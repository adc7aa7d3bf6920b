/**
 * Bundles entry points for the browser: `platform: 'browser'`, no polyfills, the
 * workspace packages resolved to their sources (the bundle checks the code as it is
 * now, not a stale build), and the Node guard. Fails when a bundle pulls in Node or
 * fast-check (the runtime entries must not need a test library).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Plugin } from 'esbuild';
import { nodeBuiltinsGuard, nodeGlobalsDefine } from './node-builtins-guard.js';

/** The repository root. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const WORKSPACE: Record<string, string> = {
  '@ipsets/core': join(REPO_ROOT, 'packages/core/src/index.ts'),
  '@ipsets/fake-kernel': join(REPO_ROOT, 'packages/fake-kernel/src/index.ts'),
  '@ipsets/fake-kernel/invariants': join(REPO_ROOT, 'packages/fake-kernel/src/invariants.ts'),
};

function workspaceSources(): Plugin {
  return {
    name: 'ipsets-workspace-sources',
    setup(b) {
      b.onResolve({ filter: /^@ipsets\// }, (args) => {
        const path = WORKSPACE[args.path];
        if (path !== undefined) return { path };
        return { errors: [{ text: `${JSON.stringify(args.path)} is not available in the browser; use @ipsets/core, @ipsets/fake-kernel or @ipsets/fake-kernel/invariants` }] };
      });
    },
  };
}

/** One file written by {@link bundleForBrowser}. */
export interface BundleOutput {
  readonly file: string;
  readonly bytes: number;
}

/** What {@link bundleForBrowser} built. */
export interface BundleResult {
  readonly outputs: readonly BundleOutput[];
  /** Source files in the bundle, relative to the repository root. */
  readonly inputs: readonly string[];
}

/** Options of {@link bundleForBrowser}. */
export interface BundleOptions {
  /** Output name (without `.js`) → entry file. */
  readonly entries: Readonly<Record<string, string>>;
  readonly outdir: string;
  /** Minify (default true: the sizes reported are what a page downloads). */
  readonly minify?: boolean;
}

/**
 * Bundles `entries` into `outdir` as classic scripts (IIFE: the page also works when
 * opened from a file).
 *
 * @throws Error with esbuild's messages when the guard or resolution fails, or when
 *   fast-check ends up in a bundle.
 */
export async function bundleForBrowser(options: BundleOptions): Promise<BundleResult> {
  let result;
  try {
    result = await build({
    entryPoints: options.entries as Record<string, string>,
    outdir: options.outdir,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    minify: options.minify ?? true,
    sourcemap: false,
    metafile: true,
    write: false,
    logLevel: 'silent',
    define: nodeGlobalsDefine(),
    // Pages outside this package (the playground) take their libraries (yaml) from here.
    nodePaths: [join(REPO_ROOT, 'packages/browser-check/node_modules')],
    plugins: [workspaceSources(), nodeBuiltinsGuard()],
    });
  } catch (error) {
    const errors = (error as { errors?: { text: string }[] }).errors;
    throw new Error(errors === undefined ? String(error) : errors.map((e) => e.text).join('\n'), { cause: error });
  }
  if (result.errors.length > 0) {
    throw new Error(result.errors.map((e) => e.text).join('\n'));
  }
  const inputs = Object.keys(result.metafile.inputs).map((p) => relative(REPO_ROOT, join(process.cwd(), p)));
  const testLibrary = inputs.find((p) => p.includes('node_modules/fast-check') || p.includes('node_modules/vitest'));
  if (testLibrary !== undefined) throw new Error(`a browser bundle pulled in a test library: ${testLibrary}`);
  await mkdir(options.outdir, { recursive: true });
  const outputs: BundleOutput[] = [];
  for (const file of result.outputFiles) {
    await writeFile(file.path, file.contents);
    outputs.push({ file: file.path, bytes: file.contents.byteLength });
  }
  return { outputs, inputs };
}
