/**
 * Values inside messages, for input errors and outputs alike: counts, sizes and
 * durations as people read them, and text from elsewhere (a file, a parser, the
 * kernel) quoted or cut so that a hostile value never comes back whole.
 */

/** Longest part of a value that a message quotes (the full length is stated after it). */
export const QUOTE_LIMIT = 64;

/**
 * Quotes a value for a message, cut to `limit` characters with its full length stated:
 * `"aaaa"… (52,428,800 characters)`. A hostile file's 50 MB set name must not come
 * back whole on stderr.
 */
export function quoteCut(value: unknown, limit = QUOTE_LIMIT): string {
  const text = typeof value === 'string' ? value : String(value);
  if (text.length <= limit) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, limit))}… (${formatCount(text.length)} characters)`;
}

/** Cuts a message (text from elsewhere: a parser, the kernel) to `limit` characters, saying so. */
export function cutText(text: string, limit = 1000): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… (cut, ${formatCount(text.length)} characters in all)`;
}

/** `1.2 ms`, `340 ms`, `2.41 s`. */
export function formatDuration(ms: number): string {
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** `1,234,567` (stable across locales). */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `812 B`, `45.3 KiB`, `1.20 MiB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}
