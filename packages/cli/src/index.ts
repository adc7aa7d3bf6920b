/**
 * @ipsets/cli — the `ipsets` command. The programmatic surface is what the command
 * is built from: the desired-state file, kernel choice, output formatting and
 * `runCli` itself.
 *
 * @packageDocumentation
 */

// --- the command line ---
export { createProgram, cliVersion, parseDuration, runCli } from './program.js';
export { EXIT, MAX_ERROR_BYTES, boundErrorText, processIo, reportError } from './cli-io.js';
export type { CliIo, OutStream, ReportErrorOptions } from './cli-io.js';

// --- the desired-state file ---
export {
  DEFAULT_FILE_OWNER,
  MAX_SET_NAME_LENGTH,
  buildManager,
  desiredFileError,
  desiredStateOf,
  formatPath,
  formatProblem,
  loadDesiredFile,
  parseDesiredText,
  validateDesiredDocument,
} from './desired-file.js';
export type { DesiredFile, DesiredFileSet, FileProblem, LoadDesiredOptions, ParseDesiredOptions } from './desired-file.js';
export { checkEmptyDesired, guardEmptyDesired, setsDestroyedBy } from './empty-desired.js';
export { MAX_INPUT_BYTES, decodeUtf8, readInputFile, readInputStream } from './bounded-read.js';
export type { ReadInputOptions } from './bounded-read.js';

// --- kernels ---
export { DEFAULT_STATE_FILE, loadFakeKernel, openKernel, saveFakeKernel, withProgress } from './kernel.js';
export type { KernelHandle, KernelOptions, ProgressStream } from './kernel.js';

// --- output ---
export {
  diffFromPlan,
  formatApplyReport,
  formatBytes,
  formatCount,
  formatDiff,
  formatDuration,
  formatPlanCounts,
  formatNotes,
  formatResetReport,
  applyOutcome,
  cutText,
  quoteCut,
  remainingFromPlan,
  headLines,
  headRestore,
  labelsOf,
  planToJson,
  reportToJson,
} from './format.js';
export type { FormatDiffOptions, FormatReportOptions, FormatResetOptions, PlanLineJson, RemainingSet, SetDiff } from './format.js';
export { colorEnabled, createStyle } from './style.js';
export type { Style, TtyLike } from './style.js';
export { isLoopbackHost, parseListenAddress } from './listen-address.js';
export type { ListenAddress } from './listen-address.js';

// --- commands ---
export { createFileAgentMetrics, serveMetrics } from './commands/agent.js';
export type { AgentCommandOptions, FileAgentMetrics } from './commands/agent.js';
export { filterOwnedSave } from './commands/save.js';
export { compareWithDesired, runDemo } from './commands/demo.js';
export type { DemoOptions, DemoResult } from './commands/demo.js';
