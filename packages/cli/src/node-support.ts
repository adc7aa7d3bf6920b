/**
 * The Node versions the command runs on: the package's `engines` range (a test keeps them
 * equal). `bin.ts` checks it before loading anything else, so an older Node gets one clear
 * line instead of a failure halfway through an apply.
 */
export const SUPPORTED_NODE = '^22.13.0 || ^24.0.0 || >=26.0.0';

/** True when Node `version` (`process.versions.node`, e.g. `22.13.0`) is in {@link SUPPORTED_NODE}. */
export function isSupportedNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return (major === 22 && minor >= 13) || major === 24 || major >= 26;
}
