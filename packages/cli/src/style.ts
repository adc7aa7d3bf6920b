/**
 * Terminal colour: on when the stream is a terminal, off with `NO_COLOR` (any
 * non-empty value, https://no-color.org) or when output goes to a pipe or file;
 * `FORCE_COLOR` (non-empty, not `0`) turns it on for pipes.
 */
import { styleText } from 'node:util';

/** The colours the command uses; each returns its text unchanged when colour is off. */
export interface Style {
  readonly enabled: boolean;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

/** Minimal view of a stream for colour decisions. */
export interface TtyLike {
  readonly isTTY?: boolean;
}

/** True when output to `stream` should be coloured under `env`. */
export function colorEnabled(stream: TtyLike, env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true;
  return stream.isTTY === true;
}

type Format = 'green' | 'red' | 'yellow' | 'cyan' | 'bold' | 'dim';

// The escape codes come from Node (`util.styleText`); whether to colour at all is
// `colorEnabled`'s decision, so Node's own stream and environment checks are off
// (`validateStream: false`): they differ between 22.x releases.
const paint = (on: boolean, format: Format) => (text: string) => (on ? styleText(format, text, { validateStream: false }) : text);

/** A style with colour on or off. */
export function createStyle(enabled: boolean): Style {
  return {
    enabled,
    green: paint(enabled, 'green'),
    red: paint(enabled, 'red'),
    yellow: paint(enabled, 'yellow'),
    cyan: paint(enabled, 'cyan'),
    bold: paint(enabled, 'bold'),
    dim: paint(enabled, 'dim'),
  };
}
