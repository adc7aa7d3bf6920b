/**
 * The real-kernel gate as a vitest `describe`, shared by every package's tests (each
 * passes its gate: `kernelTestGate` of `@ipsets/exec-linux/testing`). A suite that needs
 * root, ipset and network namespaces runs when the gate says the kernel is usable;
 * otherwise it is skipped with the gate's one-line reason. A skip that nobody asked for
 * must not pass unseen where the kernel is supposed to be there: in CI (`CI` set) it
 * fails with the reason, and so does a gate that throws (`IPSETS_KERNEL_TESTS=require`).
 * An explicit `IPSETS_KERNEL_TESTS=skip` is a request, so it stays a skip everywhere.
 */
import { describe, it } from 'vitest';

/** What a real-kernel gate answers (`kernelTestGate` of `@ipsets/exec-linux/testing` fits). */
export interface KernelGateAnswer {
  /** True when the real-kernel suites can run. */
  run: boolean;
  /** One line saying why they cannot. */
  reason?: string;
}

/** What {@link kernelGateDecision} decided for the suites of one test file. */
export type KernelGateDecision = { kind: 'run' } | { kind: 'skip'; reason: string } | { kind: 'fail'; error: Error };

type Env = Readonly<Record<string, string | undefined>>;

function inCi(env: Env): string | undefined {
  const ci = env.CI;
  return ci === undefined || ci === '' || ci === 'false' || ci === '0' ? undefined : ci;
}

function askedToSkip(env: Env): boolean {
  const mode = (env.IPSETS_KERNEL_TESTS ?? '').trim().toLowerCase();
  return mode === 'skip' || mode === '0' || mode === 'false';
}

/**
 * Asks `gate` once and decides: run, skip (with the reason) or fail (with an error
 * that says why). Exported for its tests; suites use {@link createDescribeKernel}.
 */
export async function kernelGateDecision(gate: () => Promise<KernelGateAnswer>, env: Env = process.env): Promise<KernelGateDecision> {
  let answer: KernelGateAnswer;
  try {
    answer = await gate();
  } catch (error) {
    return { kind: 'fail', error: error instanceof Error ? error : new Error(String(error)) };
  }
  if (answer.run) return { kind: 'run' };
  const reason = answer.reason ?? 'the kernel is not usable for tests';
  const ci = inCi(env);
  if (ci !== undefined && !askedToSkip(env)) {
    return {
      kind: 'fail',
      error: new Error(
        `real-kernel tests cannot run in CI (CI=${ci}): ${reason}; run them as root with ipset and iproute2 installed, or set IPSETS_KERNEL_TESTS=skip to skip them on purpose`,
      ),
    };
  }
  return { kind: 'skip', reason };
}

/** A `describe` for suites that need the real kernel (see the module comment). */
export type DescribeKernel = (name: string, fn: () => void) => void;

/**
 * Resolves `gate` once (call it at the top level of a test helper: `export const
 * describeKernel = await createDescribeKernel(kernelTestGate)`) and returns the
 * `describe` the real-kernel suites of that file use. A skip prints its reason once
 * per file (`[kernel tests skipped] …`); a failure is one failing case per suite,
 * `needs the real kernel`, whose error is the reason.
 */
export async function createDescribeKernel(gate: () => Promise<KernelGateAnswer>, env: Env = process.env): Promise<DescribeKernel> {
  const decision = await kernelGateDecision(gate, env);
  let announced = false;
  return (name, fn) => {
    switch (decision.kind) {
      case 'run':
        describe(name, fn);
        return;
      case 'fail':
        describe(name, () => {
          it('needs the real kernel', () => {
            throw decision.error;
          });
        });
        return;
      case 'skip':
        if (!announced) {
          announced = true;
          console.warn(`[kernel tests skipped] ${decision.reason}`);
        }
        describe.skip(`${name} (skipped: ${decision.reason})`, fn);
    }
  };
}
