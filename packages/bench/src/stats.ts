/**
 * Timing and statistics helpers: medians, garbage collection between samples,
 * heap readings, and number formatting for the report.
 */
import { readFileSync } from 'node:fs';

const gcFunction = (globalThis as { gc?: () => void }).gc;

/** True when the process runs with `--expose-gc` (memory figures need it). */
export const canCollect = gcFunction !== undefined;

/** Runs a full collection (twice: the first pass can leave finalised objects for the second). */
export function collect(): void {
  gcFunction?.();
  gcFunction?.();
}

/** Heap in use after a full collection, in bytes. */
export function heapAfterGc(): number {
  collect();
  return process.memoryUsage().heapUsed;
}

/** The median of `values` (the lower middle value for an even count); `NaN` when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** CPU time (user + system, every thread of this process: GC helpers too) since `since`, in ms. */
export function cpuSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** Wall and CPU milliseconds `fn` takes (after a collection, so one sample's garbage does not bill the next). */
export function timeSync<T>(fn: () => T): { ms: number; cpuMs: number; value: T } {
  collect();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = fn();
  const ms = performance.now() - started;
  return { ms, cpuMs: cpuSince(cpu), value };
}

/** Wall and CPU milliseconds the promise of `fn` takes (after a collection). */
export async function timeAsync<T>(fn: () => Promise<T>): Promise<{ ms: number; cpuMs: number; value: T }> {
  collect();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await fn();
  const ms = performance.now() - started;
  return { ms, cpuMs: cpuSince(cpu), value };
}

/**
 * Clock ticks per second of `/proc/<pid>/stat` (`USER_HZ`): 100 on every Linux
 * architecture Node runs on, whatever the kernel's own tick rate.
 */
const USER_HZ = 100;

/**
 * CPU time (user + system) of the children of the process whose `/proc/<pid>/stat`
 * line is `stat`, in ms: fields 16 and 17 (`cutime`, `cstime`), which count every child
 * that has exited and been waited for, and the waited-for children of those. Counted
 * after the last `)`, as the command name in parentheses may hold spaces and parentheses.
 */
export function childrenCpuFromStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).trim().split(' ');
  // After the name, field 3 (`state`) is index 0, so field n is index n - 3.
  const cutime = Number(fields[16 - 3]);
  const cstime = Number(fields[17 - 3]);
  return ((cutime + cstime) * 1000) / USER_HZ;
}

/**
 * CPU time of this process's exited and reaped children so far, in ms (whole `USER_HZ`
 * ticks: 10 ms steps); `NaN` without `/proc`. Node has no `getrusage(RUSAGE_CHILDREN)`:
 * `process.cpuUsage()` and `process.resourceUsage()` count this process only.
 */
export function childrenCpuMs(): number {
  try {
    return childrenCpuFromStat(readFileSync('/proc/self/stat', 'utf8'));
  } catch {
    return Number.NaN;
  }
}

/**
 * Like {@link timeAsync}, but `cpuMs` also counts the child processes `fn` started and
 * reaped (see {@link childrenCpuMs}; `childCpuMs` is their share): the whole CPU cost of
 * a call that runs commands.
 */
export async function timeAsyncWithChildren<T>(fn: () => Promise<T>): Promise<{ ms: number; cpuMs: number; childCpuMs: number; value: T }> {
  collect();
  const children = childrenCpuMs();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await fn();
  const ms = performance.now() - started;
  const selfMs = cpuSince(cpu);
  const childCpuMs = childrenCpuMs() - children;
  return { ms, cpuMs: selfMs + childCpuMs, childCpuMs, value };
}

/** A duration for people: `12.3 µs`, `45.6 ms`, `7.89 s`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 1) return `${(ms * 1000).toPrecision(3)} µs`;
  if (ms < 1000) return `${ms.toPrecision(3)} ms`;
  return `${(ms / 1000).toPrecision(3)} s`;
}

/** A ratio with three significant digits (`0.0412`, `1.07`, `12.3`). */
export function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return 'n/a';
  return ratio >= 100 ? ratio.toFixed(0) : ratio.toPrecision(3);
}

/** A count with thousands separators (`1,000,000`). */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** `10k`, `100k`, `1M`: state sizes in labels. */
export function shortCount(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`;
  return String(n);
}
