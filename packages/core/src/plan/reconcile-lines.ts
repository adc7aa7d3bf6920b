/**
 * The lines of reconcile planning, in their order (plan-reconcile.ts documents why):
 * (B) deletes from kept lists, (C) destroys of lists, (D) destroys of hash sets to be
 * recreated, (E) creates, (F) hash-set member deletes then adds (or rebuilds), (G)
 * list adds, (H) destroys of undesired hash sets. Each step is one method of
 * {@link ReconcileLines}, and {@link reconcileLines} runs them in that order.
 *
 * (F) is the hot path of a resync: it walks every saved member of every kept hash set.
 */
import { withInitialHashsize } from '../model/capacity.js';
import type { SetCapacity } from '../model/capacity.js';
import { NOMATCH_FLAG, entryKey, hostValue, isCanonicalMember } from '../model/members.js';
import type { MemberKind } from '../model/members.js';
import { pushRebuildLines } from './rebuild.js';
import { chooseTemporary } from './set-fate.js';
import { RECONCILE_HANDLERS, addOrUpdateSection, deleteSection } from './handlers.js';
import { unreadableNote } from './reconcile-fates.js';
import type { Fate, KernelView } from './reconcile-fates.js';
import type { Wanted } from './reconcile-validate.js';
import { HostRun } from './line-runs.js';
import type { PlanPiece } from './line-runs.js';
import type { PlanLine, PlanNote } from '../types.js';

/** Everything the line steps read: decided before any line is written. */
export interface ReconcileDecisions {
  readonly owner: string;
  /** Writer id of temporary set names (`PlanReconcileOptions.writer`). */
  readonly writer: string;
  readonly wanted: ReadonlyMap<string, Wanted>;
  readonly kernel: KernelView;
  readonly fate: ReadonlyMap<string, Fate>;
  /** The capacity each desired hash set is made with (reconcile-fates.ts). */
  readonly target: ReadonlyMap<string, SetCapacity>;
}

/**
 * The pieces of a reconcile plan, step by step. A set's adds are one run of members
 * (see line-runs.ts): a million adds are not a million line objects unless someone
 * reads `plan.lines`.
 */
export class ReconcileLines {
  readonly pieces: PlanPiece[] = [];
  /** Kept lists: the saved members each keeps after (B). */
  private readonly listAfter = new Map<string, Set<string>>();

  /** Adds one line (also the emitter of rebuilds, called per member of a rebuilt set). */
  private readonly line: (l: PlanLine) => void;

  constructor(
    private readonly d: ReconcileDecisions,
    /** Notes of sets found unreadable while their lines are planned. */
    private readonly notes: PlanNote[],
  ) {
    const pieces = this.pieces;
    this.line = (l) => {
      pieces.push(l);
    };
  }

  /** A rebuild through a temporary set the kernel does not hold (set-fate.ts `chooseTemporary`). */
  private rebuild(name: string, w: Wanted, section: string): void {
    const { sets } = this.d.kernel;
    const temporary = chooseTemporary(this.d.owner, name, this.d.writer, (n) => sets.has(n));
    pushRebuildLines(this.line, { name, spec: w.set.spec, capacity: this.d.target.get(name) ?? w.capacity, section }, temporary, w.members);
  }

  /**
   * (B) Kept lists let go of members they should not hold and of members to be
   * recreated (every saved member of a kept list is a set name: see decideFates).
   */
  releaseListMembers(): void {
    const { kernel, fate, wanted } = this.d;
    for (const s of kernel.sets.values()) {
      if (s.type !== 'list:set' || fate.get(s.name) !== 'keep') continue;
      const w = wanted.get(s.name)!;
      const after = new Set<string>();
      for (const m of s.members) {
        if (after.has(m)) continue;
        if (!w.entries.has(m) || fate.get(m) === 'recreate') {
          this.line({ op: 'del', set: s.name, member: m, section: addOrUpdateSection(s.name), onError: RECONCILE_HANDLERS.delFromList });
        } else {
          after.add(m);
        }
      }
      this.listAfter.set(s.name, after);
    }
  }

  /** (C) Lists go before hash sets so that destroyed lists release their members. */
  destroyLists(): void {
    const { kernel, fate } = this.d;
    for (const s of kernel.sets.values()) {
      if (s.type !== 'list:set') continue;
      const f = fate.get(s.name);
      if (f === 'destroy') this.line({ op: 'destroy', set: s.name, section: deleteSection(s.name), onError: RECONCILE_HANDLERS.destroy });
      if (f === 'recreate') this.line({ op: 'destroy', set: s.name, section: addOrUpdateSection(s.name), onError: RECONCILE_HANDLERS.destroyToRecreate });
    }
  }

  /** (D) Hash sets to be recreated. */
  destroyHashSetsToRecreate(): void {
    const { kernel, fate } = this.d;
    for (const s of kernel.sets.values()) {
      if (s.type !== 'list:set' && fate.get(s.name) === 'recreate') {
        this.line({ op: 'destroy', set: s.name, section: addOrUpdateSection(s.name), onError: RECONCILE_HANDLERS.destroyToRecreate });
      }
    }
  }

  /** (E) Creates: every member a list adds in (G) exists by then. */
  createSets(): void {
    const { wanted, fate, target } = this.d;
    for (const [name, w] of wanted) {
      const f = fate.get(name);
      if (f === undefined || f === 'recreate') {
        // A new hash set is sized for the members it is filled with (see initialHashsize).
        const capacity = target.get(name) ?? w.capacity;
        this.line({ op: 'create', set: name, spec: w.set.spec, ...(w.list ? capacity : withInitialHashsize(capacity, w.count)), section: addOrUpdateSection(name), onError: RECONCILE_HANDLERS.create });
      }
    }
  }

  /** (F) Hash sets: deletes, then adds (or a rebuild). */
  patchHashSets(): void {
    const { wanted, fate } = this.d;
    for (const [name, w] of wanted) {
      if (w.list) continue;
      const f = fate.get(name);
      if (f === 'conflict-stay') continue;
      this.patchHashSet(name, w, f);
    }
  }

  /** (F) of one desired hash set whose fate is `f` (`undefined`: created in (E)). */
  private patchHashSet(name: string, w: Wanted, f: Fate | undefined): void {
    const pieces = this.pieces;
    const section = addOrUpdateSection(name);
    if (f === 'rebuild') {
      this.rebuild(name, w, section);
      return;
    }
    // Marks of the desired members the kernel already holds, by index: a second map of
    // a million kept members cost more than the lookups themselves.
    const have = new Uint8Array(w.count);
    let rebuilt = false;
    if (f === 'keep') {
      const { entries, hosts } = w;
      const saved = this.d.kernel.sets.get(name)!;
      const type = w.spec.kernelType as MemberKind;
      const family = w.spec.family;
      const start = pieces.length;
      // A saved set is planned from its member list's host values (for a set parseSave
      // made, what the parser read): a host member is a number, and only members that
      // get a line become strings (a million unchanged members make no garbage).
      const spans = saved.members;
      const values = spans.hostValues();
      const count = spans.length;
      for (let i = 0; i < count; i++) {
        let m: string | undefined;
        // The parser read a host's value on the way; any other member is read here.
        let v = values[i]!;
        if (v < 0 || hosts === undefined) {
          m = spans.at(i);
          v = hosts === undefined ? -1 : hostValue(m);
        }
        const nomatch = v >= NOMATCH_FLAG;
        const address = nomatch ? v - NOMATCH_FLAG : v;
        let match = -1;
        if (address >= 0) {
          // Same address and same nomatch flag: the same string (see hostValue).
          const slot = hosts!.get(address);
          if (slot > 0 ? !nomatch : slot < 0 && nomatch) match = Math.abs(slot) - 1;
        } else {
          const index = entries.get(entryKey(m!));
          if (index !== undefined && w.members[index] === m) match = index;
        }
        if (match >= 0) {
          have[match] = 1;
          continue;
        }
        // Only a member hostValue read (a canonical host by construction) or one
        // isCanonicalMember accepts is written into a line.
        m ??= spans.at(i);
        if (address >= 0 || isCanonicalMember(type, m, family)) {
          // Not desired, or its nomatch flag switches: delete (and add back below).
          pieces.push({ op: 'del', set: name, member: m, section, onError: RECONCILE_HANDLERS.delFromSet });
        } else {
          // Never echo a member ipset would not print: rebuild the set instead.
          pieces.length = start;
          this.notes.push(unreadableNote(saved, m));
          rebuilt = true;
          break;
        }
      }
    }
    if (rebuilt) {
      this.rebuild(name, w, section);
      return;
    }
    const list = w.hostList;
    if (list !== undefined) {
      // Hosts given as numbers are added as numbers: their strings are never made.
      let missing = 0;
      for (let i = 0; i < list.length; i++) missing += 1 - have[i]!;
      if (missing === 0) return;
      let adds = list;
      if (missing < list.length) {
        adds = new Uint32Array(missing);
        for (let i = 0, k = 0; i < list.length; i++) if (have[i] === 0) adds[k++] = list[i]!;
      }
      pieces.push(new HostRun('add', name, section, RECONCILE_HANDLERS.addToSet, adds));
      return;
    }
    const members = w.members;
    const adds: string[] = [];
    for (let i = 0; i < members.length; i++) if (have[i] === 0) adds.push(members[i]!);
    if (adds.length > 0) pieces.push({ op: 'add', set: name, section, onError: RECONCILE_HANDLERS.addToSet, members: adds });
  }

  /** (G) List adds (or rebuilds), once every member set exists. */
  fillLists(): void {
    const { wanted, fate } = this.d;
    for (const [name, w] of wanted) {
      if (!w.list || fate.get(name) === 'conflict-stay') continue;
      if (fate.get(name) === 'rebuild') {
        this.rebuild(name, w, addOrUpdateSection(name));
        continue;
      }
      const after = this.listAfter.get(name) ?? new Set<string>();
      for (const m of w.members) {
        if (!after.has(m)) this.line({ op: 'add', set: name, member: m, section: addOrUpdateSection(name), onError: RECONCILE_HANDLERS.addToList });
      }
    }
  }

  /** (H) Undesired hash sets, released above. */
  destroyUndesiredHashSets(): void {
    const { kernel, fate } = this.d;
    for (const s of kernel.sets.values()) {
      if (s.type !== 'list:set' && fate.get(s.name) === 'destroy') {
        this.line({ op: 'destroy', set: s.name, section: deleteSection(s.name), onError: RECONCILE_HANDLERS.destroy });
      }
    }
  }
}

/** The pieces of the plan that carries out `decisions`, in the order (B)–(H); unreadable sets found on the way add notes. */
export function reconcileLines(decisions: ReconcileDecisions, notes: PlanNote[]): PlanPiece[] {
  const lines = new ReconcileLines(decisions, notes);
  lines.releaseListMembers();
  lines.destroyLists();
  lines.destroyHashSetsToRecreate();
  lines.createSets();
  lines.patchHashSets();
  lines.fillLists();
  lines.destroyUndesiredHashSets();
  return lines.pieces;
}
