/**
 * The agent command's own metrics, next to the library agent's (operations,
 * durations, attempts, failures by kind, consecutive failures) on one registry.
 */
import { Counter, Gauge, collectDefaultMetrics } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ApplyReport } from '@ipsets/core';

/** Metrics the command adds to the agent's registry. */
export interface FileAgentMetrics {
  /** An apply ended with a report. */
  observe(report: ApplyReport): void;
  /** The desired file was missing or invalid (the last good state stays in force). */
  fileError(): void;
  /** Whether the file on disk is currently valid (1) or not (0). */
  fileValid(valid: boolean): void;
  /** An apply ended without a report (the kernel could not be read, a timeout, the lock). */
  kernelError(): void;
}

/** What `ipsets_build_info` says. */
export interface BuildInfo {
  /** The `ipsets` command's version. */
  version: string;
  /** The `ipset` found (`7.17`), `fake` for the fake kernel, `unknown` when it could not be read. */
  ipsetVersion: string;
}

/**
 * Adds what every long-running process should show: prom-client's default metrics
 * (`process_resident_memory_bytes`, `process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`,
 * garbage collection, event-loop lag, …) and `ipsets_build_info{version,ipset_version} 1`,
 * so the agent's memory and the versions running on each node can be graphed.
 */
export function addProcessMetrics(registry: Registry, build: BuildInfo): void {
  collectDefaultMetrics({ register: registry });
  const info = new Gauge({
    name: 'ipsets_build_info',
    help: 'Always 1; the labels say which ipsets command and which ipset run on this node.',
    labelNames: ['version', 'ipset_version'],
    registers: [registry],
  });
  info.set({ version: build.version, ipset_version: build.ipsetVersion }, 1);
}

/** Adds the command's metrics to `registry`: converged, sets not converged, last apply time, file errors and validity. */
export function createFileAgentMetrics(registry: Registry): FileAgentMetrics {
  const converged = new Gauge({ name: 'ipsets_converged', help: '1 when the last apply converged, else 0.', registers: [registry] });
  const notConverged = new Gauge({
    name: 'ipsets_sets_not_converged',
    help: 'Sets that did not reach their desired state in the last apply.',
    registers: [registry],
  });
  const last = new Gauge({ name: 'ipsets_last_apply_timestamp_seconds', help: 'When the last apply ended (unix seconds).', registers: [registry] });
  const fileErrors = new Counter({
    name: 'ipsets_file_errors_total',
    help: 'Times the desired-state file was found missing or invalid (the last good state stayed in force).',
    registers: [registry],
  });
  const valid = new Gauge({
    name: 'ipsets_desired_file_valid',
    help: '1 when the desired-state file on disk is readable and valid, 0 while the last good state is kept instead.',
    registers: [registry],
  });
  valid.set(1);
  return {
    observe(report) {
      converged.set(report.converged ? 1 : 0);
      notConverged.set(report.failedSets.length);
      last.set(Date.now() / 1000);
    },
    fileError() {
      fileErrors.inc();
    },
    fileValid(ok) {
      valid.set(ok ? 1 : 0);
    },
    kernelError() {
      converged.set(0);
      last.set(Date.now() / 1000);
    },
  };
}
