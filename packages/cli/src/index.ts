/**
 * @ipsets/cli — the `ipsets` command. The programmatic surface is what the command
 * is built from: the desired-state file, kernel choice, output formatting and
 * `runCli` itself.
 *
 * @packageDocumentation
 */

// --- the command line ---
export { createProgram, cliVersion, runCli } from './program/index.js';
export { parseDuration } from './program/options.js';
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
} from './desired/file.js';
export type { DesiredFile, DesiredFileSet, FileProblem, LoadDesiredOptions, ParseDesiredOptions } from './desired/file.js';
export { DESTROY_BUDGET_MIN_SETS, DESTROY_BUDGET_SHARE, checkDestroyBudget, countDestroyed, guardDestroyBudget, withinDestroyBudget } from './destroy-budget.js';
export type { DestroyBudgetOptions, DestroyCount } from './destroy-budget.js';
export { MAX_INPUT_BYTES, decodeUtf8, inputProblemOf, readInputFile, readInputStream, readInputText, readInputTextOrThrow } from './bounded-read.js';
export type { InputProblem, InputProblemReason, InputText, ReadInputOptions, ReadInputTextOptions } from './bounded-read.js';
export { DesiredParts, MAX_DECOMPRESSED_PART_BYTES, loadDesiredParts } from './desired/parts.js';
export type { DesiredPartsOptions, PartProblem, PartsCheck } from './desired/parts.js';

// --- kernels ---
export {
  DEFAULT_GRACE_MS,
  DEFAULT_MAX_FAILURES,
  DEFAULT_METRICS_BIND_ADDRESS,
  DEFAULT_READ_TIMEOUT_MS,
  DEFAULT_RESTORE_TIMEOUT_MS,
  DEFAULT_STATE_FILE,
} from './defaults.js';
export { openKernel } from './kernel/index.js';
export type { KernelHandle, KernelOptions } from './kernel/index.js';
export { loadFakeKernel, saveFakeKernel } from './kernel/fake-state-file.js';
export { withProgress } from './kernel/progress.js';
export type { ProgressStream } from './kernel/progress.js';

// --- output ---
export { cutText, formatBytes, formatCount, formatDuration, quoteCut } from './format.js';
export { diffFromPlan, formatDiff, remainingFromPlan } from './output/diff.js';
export type { FormatDiffOptions, RemainingSet, SetDiff } from './output/diff.js';
export { planToJson } from './output/plan-json.js';
export type { PlanCounts, PlanJson, PlanLineJson } from './output/plan-json.js';
export { formatNotes, formatPlanCounts, headLines, headRestore } from './output/plan-text.js';
export { applyOutcome, formatApplyReport, reportToJson } from './output/apply-report.js';
export type { FormatReportOptions } from './output/apply-report.js';
export { formatResetReport } from './output/reset-report.js';
export type { FormatResetOptions } from './output/reset-report.js';
export { labelsOf } from './output/labels.js';
export { colorEnabled, createStyle } from './style.js';
export type { Style, TtyLike } from './style.js';
export { isLoopbackHost, parseListenAddress } from './listen-address.js';
export type { ListenAddress } from './listen-address.js';

// --- commands ---
export { createFileAgentMetrics } from './commands/agent.js';
export type { AgentCommandOptions, FileAgentMetrics } from './commands/agent.js';
export { AgentProbes } from './agent/health.js';
export type { AgentProbesOptions, ProbeResult } from './agent/health.js';
export { closeServer, serveAgentHttp } from './agent/http-server.js';
export type { HealthProbes } from './agent/http-server.js';
export { DesiredSource } from './agent/desired-source.js';
export type { DesiredFolderOptions, DesiredSourceOptions } from './agent/desired-source.js';
export { ApplyScheduler } from './agent/scheduler.js';
export type { ApplySchedulerOptions, SchedulerClock } from './agent/scheduler.js';
export { lockPathFor, withWriterLock } from './kernel-lock.js';
export type { WriterLockOptions } from './kernel-lock.js';
export { listenForStop, stoppablePort, STOP_SIGNALS } from './signals.js';
export type { ListenForStopOptions, StoppablePort, StopListener, StopSignalName } from './signals.js';
export { createLogger, defaultLogFormat, LOG_LEVELS, parseLogFormat, parseLogLevel, serializeError, textLine } from './logging.js';
export type { CliLogger, LogFormat, LoggerOptions, LogLevel } from './logging.js';
export { parseDuration as parseDurationText } from './duration.js';
export type { ParseDurationOptions } from './duration.js';
export { filterOwnedSave } from './commands/save.js';
export { runDemo } from './commands/demo.js';
export { compareWithDesired } from './demo/compare.js';
export type { DemoOptions, DemoResult } from './commands/demo.js';
