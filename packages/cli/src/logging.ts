/**
 * Structured logs of long-running commands (the agent) and of events that outlive a
 * report (signals, lock waits): pino, one JSON object per line on stderr (`level`,
 * `time`, `msg` and the event's fields), or one readable line per event on a terminal.
 */
import { createRequire } from 'node:module';
import type { LogFn, Logger, pino as Pino } from 'pino';
import { IpsetsError, isIpsetsError, quote } from '@ipsets/core';
import type { OutStream } from './cli-io.js';

/** The log formats, as `--log-format` takes them. */
export const LOG_FORMATS = ['json', 'text'] as const;

/** `json`: one JSON object per line; `text`: one readable line per event. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Levels a user may choose with `--log-level`. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Where lines go (the process's stderr). */
  stream: OutStream;
  /** Default: `text` when `stream` is a terminal, else `json`. */
  format?: LogFormat;
  /** Default `info`. */
  level?: LogLevel;
  /** Merged into every line (e.g. `{ pid }`). */
  base?: Record<string, unknown>;
}

/** The logger the CLI passes around; pino's, so the library agent can use it as is. */
export type CliLogger = Logger;

/**
 * Parses `--log-format`.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for anything but json or text.
 */
export function parseLogFormat(value: string): LogFormat {
  if (value === 'json' || value === 'text') return value;
  throw new IpsetsError('INVALID_ARGUMENT', `--log-format ${quote(value)} is not a log format; expected json or text`);
}

/**
 * Parses `--log-level`.
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for a level not in {@link LOG_LEVELS}.
 */
export function parseLogLevel(value: string): LogLevel {
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  throw new IpsetsError('INVALID_ARGUMENT', `--log-level ${quote(value)} is not a log level; expected one of ${LOG_LEVELS.join(', ')}`);
}

/** The format used when none is given: text for people at a terminal, JSON for collectors. */
export function defaultLogFormat(stream: OutStream): LogFormat {
  return stream.isTTY === true ? 'text' : 'json';
}

let pinoPackage: typeof Pino | undefined;

/** pino, loaded by the first logger made: a command that never logs never pays for it (≈ 120 ms of CPU at start). */
function loadPino(): typeof Pino {
  return (pinoPackage ??= (createRequire(import.meta.url)('pino') as { pino: typeof Pino }).pino);
}

/** Creates a logger writing to `options.stream` (synchronously: a crash never loses the last lines). */
export function createLogger(options: LoggerOptions): CliLogger {
  const pino = loadPino();
  const format = options.format ?? defaultLogFormat(options.stream);
  const target = options.stream;
  const destination = format === 'json' ? { write: (line: string) => void target.write(line) } : { write: (line: string) => void target.write(textLine(line)) };
  return pino(
    {
      level: options.level ?? 'info',
      base: options.base ?? { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Level names instead of numbers: a reader of the log (or a grep) needs no table.
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
    },
    destination,
  );
}

/** Errors as data: code and message (the message already quotes the bad value); no stack for IpsetsErrors. */
export function serializeError(error: unknown): Record<string, unknown> {
  if (isIpsetsError(error)) return { code: error.code, message: error.message };
  if (error instanceof Error) return { type: error.name, message: error.message, ...(error.stack === undefined ? {} : { stack: error.stack }) };
  return { message: String(error) };
}

const SKIP = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** One JSON log line as one readable line: `TIME LEVEL msg key=value …`, newlines escaped. */
export function textLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const parts = [String(record['time'] ?? ''), String(record['level'] ?? '').toUpperCase().padEnd(5), oneLine(String(record['msg'] ?? ''))];
  for (const [key, value] of Object.entries(record)) {
    if (SKIP.has(key) || value === undefined) continue;
    parts.push(`${key}=${formatValue(key, value)}`);
  }
  return `${parts.join(' ')}\n`;
}

function formatValue(key: string, value: unknown): string {
  if (key === 'err' && typeof value === 'object' && value !== null) {
    const e = value as Record<string, unknown>;
    // The stack is for JSON collectors; on a terminal the code and message say enough.
    return JSON.stringify(oneLine(`${e['code'] === undefined ? '' : `${String(e['code'])}: `}${String(e['message'] ?? '')}`));
  }
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return oneLine(JSON.stringify(value));
}

function oneLine(text: string): string {
  return text.replace(/\r?\n/g, ' | ');
}

/** The levels a command logs at, without the rest of a pino logger. */
export type CommandLogger = Pick<CliLogger, 'debug' | 'info' | 'warn' | 'error'>;

/**
 * A logger made ({@link createLogger}) on its first line: `ipsets apply` usually logs
 * nothing (signals and lock waits only), and its start is part of every apply.
 */
export function createDeferredLogger(options: LoggerOptions): CommandLogger {
  let logger: CliLogger | undefined;
  const level = (name: keyof CommandLogger): LogFn =>
    ((...args: unknown[]) => ((logger ??= createLogger(options))[name] as (...a: unknown[]) => void)(...args)) as LogFn;
  return { debug: level('debug'), info: level('info'), warn: level('warn'), error: level('error') };
}
