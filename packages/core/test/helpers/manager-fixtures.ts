/** Fixtures shared by the manager and plan tests: the reference's unit-test sets and their kernel names (docs/reference-behaviour.md §a.2). */
import { IPSetManager } from '../../src/manager/manager.js';
import type { IPSetManagerConfig } from '../../src/manager/manager.js';
import { planApply } from '../../src/plan/plan-apply.js';
import { renderRestore } from '../../src/session/render.js';
import type { ApplyReport, RestorePlan, SetMetadata } from '../../src/types.js';

export const NS: SetMetadata = { name: 'test-ns-set', type: 'namespace' };
export const KEY_POD: SetMetadata = { name: 'test-keyPod-set', type: 'keyLabelOfPod' };
export const KV_POD: SetMetadata = { name: 'test-kvPod-set', type: 'keyValueLabelOfPod' };
export const NAMED_PORT: SetMetadata = { name: 'test-namedport-set', type: 'namedPorts' };
export const CIDR: SetMetadata = { name: 'test-cidr-set', type: 'cidrBlocks' };
export const KEY_NS: SetMetadata = { name: 'test-keyNS-list', type: 'keyLabelOfNamespace' };
export const KV_NS: SetMetadata = { name: 'test-kvNS-list', type: 'keyValueLabelOfNamespace' };
export const NESTED: SetMetadata = { name: 'test-nestedlabel-list', type: 'nestedLabelOfPod' };

/** Kernel names (sha256-base36, owner azure-npm-) from the spec's fixture table. */
export const K = {
  NS: 'azure-npm-48454gha3irmkdh1wlh1',
  KEY_POD: 'azure-npm-2vldtl7b97d0eibs0kde',
  KV_POD: 'azure-npm-3qd7tksw0h90z6uep8kn',
  NAMED_PORT: 'azure-npm-5qab0kl2v6a9epjq3xrj',
  CIDR: 'azure-npm-2nrzjugq2oncjhiu6vo5',
  KEY_NS: 'azure-npm-19qo56net3a0ya78prsd',
  KV_NS: 'azure-npm-3x4oj4iblb58m2kk06yl',
  NESTED: 'azure-npm-29wuj96ap409wvsefn01',
  EMPTY: 'azure-npm-ngnfz42mtqjbw8ffiwmj',
} as const;

export function manager(config: IPSetManagerConfig = {}): IPSetManager {
  return new IPSetManager(config);
}

/** A report of a plan, by default fully successful. */
export function report(plan: RestorePlan, extra: Partial<ApplyReport> = {}): ApplyReport {
  return {
    converged: extra.failedSets === undefined && extra.inUseSets === undefined && extra.fatal === undefined,
    plan,
    attempts: [],
    linesTotal: plan.lines.length,
    linesApplied: plan.lines.length,
    skipped: [],
    failedSets: [],
    inUseSets: [],
    notes: [],
    ...extra,
  };
}

/** The restore text of the manager's next plan. */
export function text(m: IPSetManager): string {
  return renderRestore(planApply(m));
}

/** Plans and commits a fully successful apply; returns its text. */
export function applyAll(m: IPSetManager): string {
  const plan = planApply(m);
  m.commit(report(plan));
  return renderRestore(plan);
}

/** Lines joined with newlines, plus the final newline (restore text). */
export function lines(...list: string[]): string {
  return list.length === 0 ? '' : `${list.join('\n')}\n`;
}
