/**
 * The demo's final check: the kernel's owned sets, read back from `ipset save`,
 * compared canonically with the desired state (type, family, members).
 */
import { familyOfSpec, kernelTypeOfSpec, parseSave } from '@ipsets/core';
import type { DesiredState } from '@ipsets/core';

/** Compares the kernel's owned sets with the desired state, canonically; returns the differences. */
export function compareWithDesired(saveText: string, desired: DesiredState): string[] {
  const problems: string[] = [];
  const snapshot = parseSave(saveText);
  for (const p of snapshot.problems) problems.push(`save line ${p.line} unparsed: ${p.reason}`);
  const kernel = new Map(snapshot.sets.filter((s) => s.name.startsWith(desired.owner)).map((s) => [s.name, s]));
  for (const want of desired.sets) {
    const have = kernel.get(want.name);
    const label = want.label ?? want.name;
    if (have === undefined) {
      problems.push(`${label}: missing from the kernel`);
      continue;
    }
    kernel.delete(want.name);
    const type = kernelTypeOfSpec(want.spec);
    if (have.type !== type) problems.push(`${label}: kernel type ${have.type}, expected ${type}`);
    const family = familyOfSpec(want.spec);
    const haveFamily = /\bfamily (\S+)/.exec(have.options)?.[1];
    if (family !== undefined && haveFamily !== family) problems.push(`${label}: kernel family ${haveFamily ?? '(none)'}, expected ${family}`);
    const haveMembers = new Set(have.members);
    const wantMembers = new Set(want.members);
    const missing = [...wantMembers].filter((m) => !haveMembers.has(m));
    const extra = [...haveMembers].filter((m) => !wantMembers.has(m));
    if (missing.length > 0) problems.push(`${label}: ${missing.length} member(s) missing, e.g. ${missing[0]}`);
    if (extra.length > 0) problems.push(`${label}: ${extra.length} unexpected member(s), e.g. ${extra[0]}`);
  }
  for (const name of kernel.keys()) problems.push(`${name}: owned set in the kernel that is not desired`);
  return problems;
}

/** Members of a desired state, in all its sets. */
export function entries(state: DesiredState): number {
  let n = 0;
  for (const s of state.sets) n += s.members.length;
  return n;
}
