/**
 * Parsers for the kernel's lists of sets: `ipset list -n` and `ipset list -t`
 * (docs/ipset-semantics.md §5.2). They never throw: a line they cannot use is skipped.
 */
import type { SetHeader } from '../types.js';

const CR = 13;

/** Splits text into lines without their `\n` / `\r\n`. */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length > 0 && line.charCodeAt(line.length - 1) === CR) lines[i] = line.slice(0, -1);
  }
  return lines;
}

/**
 * Parses `ipset list -n`: one set name per line, in kernel order. Surrounding
 * whitespace is trimmed; blank lines are skipped. Never throws.
 */
export function parseListNames(text: string): string[] {
  const names: string[] = [];
  for (const line of splitLines(text)) {
    const name = line.trim();
    if (name !== '') names.push(name);
  }
  return names;
}

/**
 * Parses `ipset list -t` (or plain `ipset list`, whose member lines are skipped):
 * blocks of `Field: value` lines separated by blank lines. `Name:` also starts a new
 * block. Unknown fields are ignored; a block without `Name:` is dropped; a missing
 * `Type:` or `Header:` reads as `''`, and a missing or non-numeric `References:` or
 * `Number of entries:` as `0`. Never throws.
 */
export function parseListHeaders(text: string): SetHeader[] {
  const headers: SetHeader[] = [];
  let block: SetHeader | undefined;
  let named = false;
  let inMembers = false;
  const finish = (): void => {
    if (block !== undefined && named) headers.push(block);
    block = undefined;
    named = false;
    inMembers = false;
  };
  for (const raw of splitLines(text)) {
    const line = raw.trim();
    if (line === '') {
      finish();
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? '' : line.slice(0, colon);
    if (field === 'Name') {
      finish();
    } else if (inMembers) {
      continue;
    }
    if (colon === -1) continue;
    const value = line.slice(colon + 1).trim();
    block ??= { name: '', type: '', header: '', references: 0, entries: 0 };
    switch (field) {
      case 'Name':
        block.name = value;
        named = value !== '';
        break;
      case 'Type':
        block.type = value;
        break;
      case 'Header':
        block.header = value;
        break;
      case 'References':
        block.references = toCount(value);
        break;
      case 'Number of entries':
        block.entries = toCount(value);
        break;
      case 'Members':
        inMembers = true;
        break;
      default:
        break;
    }
  }
  finish();
  return headers;
}

function toCount(value: string): number {
  if (!/^\d+$/.test(value)) return 0;
  return Number(value);
}
