/** The machine a run is measured on (recorded with every result). */
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import type { MachineInfo } from './report.js';

/** 1-minute load average, one decimal. */
export function loadNow(): string {
  return loadavg()[0]!.toFixed(1);
}

/** Cores, CPU model, memory, Node, kernel, ipset version, date; `load` is filled in by the caller. */
export function machineInfo(ipset: string, loadAtStart: string): MachineInfo {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return {
    cores: availableParallelism(),
    cpu,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
    ipset,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    load: `${loadAtStart} → ${loadNow()}`,
  };
}
