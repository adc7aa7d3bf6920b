/**
 * An esbuild plugin that makes a browser bundle fail when anything in it needs Node:
 * an import of `node:*`, an import of a bare built-in name (`fs`, `path`,
 * `child_process`, `fs/promises` …), or a reference to a Node global (`process`,
 * `Buffer`, `__dirname`, `__filename`, `setImmediate`). esbuild on `platform:
 * 'browser'` would only fail on some of these, and a package's `browser` field or a
 * polyfill could hide the rest; this guard names the file that asked for Node.
 */
import { builtinModules } from 'node:module';
import type { BuildOptions, Plugin } from 'esbuild';

/** Globals that exist in Node but not in a browser, with the marker each one is replaced with. */
export const NODE_GLOBALS: readonly string[] = ['process', 'Buffer', '__dirname', '__filename', 'setImmediate', 'global'];

const MARKER = '__ipsets_node_global__';

const builtins = new Set(builtinModules.filter((m) => !m.startsWith('_')));

function isBuiltin(path: string): boolean {
  if (path.startsWith('node:')) return true;
  return builtins.has(path) || builtins.has(path.split('/')[0]!);
}

/** The plugin (see the module documentation). */
export function nodeBuiltinsGuard(): Plugin {
  return {
    name: 'ipsets-node-builtins-guard',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point' || !isBuiltin(args.path)) return undefined;
        return {
          errors: [
            {
              text: `${JSON.stringify(args.path)} is a Node built-in, imported by ${args.importer}; a browser bundle must not use Node`,
            },
          ],
        };
      });
      build.onEnd((result) => {
        for (const file of result.outputFiles ?? []) {
          if (!file.path.endsWith('.js')) continue;
          const text = file.text;
          for (const name of NODE_GLOBALS) {
            if (text.includes(`${MARKER}${name}`)) {
              result.errors.push({
                id: '',
                pluginName: 'ipsets-node-builtins-guard',
                text: `the bundle refers to the Node global ${JSON.stringify(name)}; a browser bundle must not use Node`,
                location: null,
                notes: [],
                detail: undefined,
              });
            }
          }
        }
      });
    },
  };
}

/**
 * The `define` entries that turn every reference to a Node global into a marker the
 * guard finds after bundling (esbuild only replaces free references, so a local
 * variable named `process` is not flagged).
 */
export function nodeGlobalsDefine(): NonNullable<BuildOptions['define']> {
  return Object.fromEntries(NODE_GLOBALS.map((name) => [name, `${MARKER}${name}`]));
}
