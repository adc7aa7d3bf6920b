// Types of scripts/toolchain.mjs for the TypeScript tests that use it.

/** scripts/node-versions.json: the supported lines, the toolchain's line and the oldest release `engines` admits. */
export interface NodeVersions {
  toolchain: string;
  lines: Record<string, string>;
  floor: string;
}

export const root: string;
export const nodeVersions: NodeVersions;
export const toolchainNode: string;
export const pinnedPnpm: string;
export const quietEnv: Readonly<Record<string, string>>;
export function nodeBinDir(version: string): string;
export function nodeBinary(version: string): string;
export function pnpmBinDir(): string;
export function toolEnv(version?: string, base?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
