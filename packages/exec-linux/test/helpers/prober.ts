/**
 * A membership prober for kernel tests: an interactive `ipset -` session inside a
 * namespace that tests members of a set round after round while an apply runs, and
 * counts the answers that are not "is in set" (a member missing, or the set gone).
 * It answers every `test` line (`Warning: X is in set S.` / `X is NOT in set S.` on
 * stderr); `ipset restore` of test lines is no prober: it stops after the first test
 * that succeeds.
 */
import { spawn } from 'node:child_process';

/** Members tested per round. */
export const PROBE_BATCH = 500;

/** What a prober saw. */
export interface ProbeCount {
  rounds: number;
  tests: number;
  misses: number;
}

/** Starts the prober on `set` with `members` (at most {@link PROBE_BATCH} per round), until stopped. */
export function startProber(netns: string, set: string, members: readonly string[]): { started: Promise<void>; stop(): Promise<ProbeCount> } {
  const child = spawn('ip', ['netns', 'exec', netns, 'ipset', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
  const count: ProbeCount = { rounds: 0, tests: 0, misses: 0 };
  const round = members.slice(0, PROBE_BATCH);
  let answers = 0;
  let buffered = '';
  let wake: (() => void) | undefined;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      answers++;
      // Anything but "is in set" (NOT in set, or the set missing) is a miss.
      if (!line.startsWith('Warning: ') || !line.endsWith(` is in set ${set}.`)) count.misses++;
    }
    if (answers >= round.length) wake?.();
  });
  const batch = round.map((m) => `test ${set} ${m}\n`).join('');
  let stopping = false;
  let firstRound: () => void = () => {};
  const started = new Promise<void>((resolve) => (firstRound = resolve));
  const loop = (async () => {
    while (!stopping) {
      answers = 0;
      const done = new Promise<void>((resolve) => (wake = resolve));
      child.stdin.write(batch);
      await done;
      count.rounds++;
      count.tests += round.length;
      if (count.rounds === 3) firstRound();
    }
  })();
  return {
    started,
    async stop() {
      stopping = true;
      await loop;
      child.stdin.end();
      await new Promise((resolve) => child.once('close', resolve));
      return count;
    },
  };
}
