/**
 * The FILE argument of plan, diff and apply: a path, or `-` for stdin (`kubectl get
 * cm … -o jsonpath=… | ipsets apply -`).
 */
import { resolve } from 'node:path';
import { IpsetsError } from '@ipsets/core';
import type { CliIo } from './cli-io.js';
import { loadDesiredFile, parseDesiredText } from './desired-file.js';
import type { DesiredFile } from './desired-file.js';

/** Reads a whole stream as UTF-8 text. */
export async function readStream(stream: AsyncIterable<string | Buffer>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text;
}

/**
 * Loads and validates the desired file named by `file` (`-`: stdin).
 *
 * @throws IpsetsError `INVALID_INPUT` for an unreadable or invalid file (nothing is applied).
 */
export async function loadDesiredInput(file: string, io: CliIo, stdin: AsyncIterable<string | Buffer> = process.stdin): Promise<DesiredFile> {
  if (file !== '-') return loadDesiredFile(resolve(io.cwd, file));
  let text: string;
  try {
    text = await readStream(stdin);
  } catch (error) {
    throw new IpsetsError('INVALID_INPUT', `cannot read the desired state from stdin: ${(error as Error).message}`, { cause: error });
  }
  return parseDesiredText(text, { source: 'stdin' });
}
