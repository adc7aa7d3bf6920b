/**
 * Terminal colour: on when the stream is a terminal, off with `NO_COLOR` (any
 * non-empty value, https://no-color.org) or when output goes to a pipe or file;
 * `FORCE_COLOR` (non-empty, not `0`) turns it on for pipes.
 */

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

const wrap = (on: boolean, open: number, close: number) => (text: string) =>
  on ? `\u001b[${open}m${text}\u001b[${close}m` : text;

/** A style with colour on or off. */
export function createStyle(enabled: boolean): Style {
  return {
    enabled,
    green: wrap(enabled, 32, 39),
    red: wrap(enabled, 31, 39),
    yellow: wrap(enabled, 33, 39),
    cyan: wrap(enabled, 36, 39),
    bold: wrap(enabled, 1, 22),
    dim: wrap(enabled, 2, 22),
  };
}
