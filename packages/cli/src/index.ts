/**
 * @ipsets/cli — the `ipsets` command. The programmatic surface is what a program
 * that embeds the command needs: `runCli` (or `createProgram` for its commander
 * program) with an io of its own or `processIo()`, the exit codes, and the readers of
 * the desired-state file and its parts and the duration parser, for simulators that
 * model a fleet of agents.
 *
 * @packageDocumentation
 */

// --- the command line ---
export { createProgram, cliVersion, runCli } from './program/index.js';
export { EXIT, processIo } from './cli-io.js';
export type { CliIo, OutStream } from './cli-io.js';

// --- the desired-state file ---
export { desiredStateOf, parseDesiredText } from './desired/file.js';
export type { DesiredFile, DesiredFileSet, FileProblem, ParseDesiredOptions } from './desired/file.js';
export { DesiredParts, MAX_DECOMPRESSED_PART_BYTES, loadDesiredParts } from './desired/parts.js';
export type { DesiredPartsOptions, PartProblem, PartsCheck } from './desired/parts.js';

export { parseDuration as parseDurationText } from './duration.js';
export type { ParseDurationOptions } from './duration.js';
