/**
 * What a failed restore line means, for every line any planner writes: the error
 * handlers (docs/reference-behaviour.md §e.1, with outcomes instead of callbacks) and
 * the sections lines are skipped in. One module, so that apply, reconcile, reset and
 * rebuild cannot drift apart; where two planners use different handlers for the same
 * command, the table says why.
 *
 * First match wins; `any` matches every error; no match ends the session.
 */
import type { ErrorHandler } from '../types.js';

function handlers(...list: ErrorHandler[]): readonly ErrorHandler[] {
  return Object.freeze(list.map((h) => Object.freeze(h)));
}

/** Every distinct rule, named by what it does; the planner tables below pick from it. */
const RULE = {
  /** `-N`: abort the set's section (its adds and deletes). */
  create: handlers(
    { when: 'set-exists', then: 'skip-section', report: 'not-converged' },
    { when: 'any', then: 'skip-section', report: 'not-converged' },
  ),
  /** `-A` to a hash set. */
  addToSet: handlers({ when: 'any', then: 'skip-line', report: 'not-converged' }),
  /** `-A` to a list. */
  addToList: handlers(
    { when: 'member-set-missing', then: 'skip-line', report: 'not-converged' },
    { when: 'any', then: 'skip-line', report: 'not-converged' },
  ),
  /** `-D` from a hash set. */
  delFromSet: handlers({ when: 'any', then: 'skip-line', report: 'not-converged' }),
  /**
   * `-D` from a list (not in the reference): the kernel refuses to destroy a set a list
   * holds (docs/ipset-semantics.md §3.1), so a member set that no longer exists is not in
   * the list and the delete's goal already holds. Without this a list whose apply
   * failed once re-sends `-D list gone-member` forever and counts toward the
   * consecutive-failure limit while the kernel is correct; a reconcile reported the
   * list not converged although it was.
   */
  delFromList: handlers(
    { when: 'member-set-missing', then: 'skip-line', report: 'ignorable' },
    { when: 'any', then: 'skip-line', report: 'not-converged' },
  ),
  /**
   * `-X` of a set to destroy, on every path, never after a `-F` (set-fate.ts): referenced
   * sets stay intact (reported in use), gone sets are fine.
   */
  destroy: handlers(
    { when: 'set-in-use', then: 'skip-line', report: 'in-use' },
    { when: 'set-missing', then: 'skip-line', report: 'ignorable' },
    { when: 'any', then: 'skip-line', report: 'not-converged' },
  ),
  /** A line the rest of its section depends on (a rebuild's build): on failure the section goes. */
  sectionDependsOn: handlers({ when: 'any', then: 'skip-section', report: 'not-converged' }),
  /** `-X` clearing the way for its section (a leftover temporary, a set to recreate): gone is fine, refused abandons the section. */
  clearTheWay: handlers(
    { when: 'set-missing', then: 'skip-line', report: 'ignorable' },
    { when: 'any', then: 'skip-section', report: 'not-converged' },
  ),
  /** A line on its own whose goal holds when the set is gone (a rebuild's cleanup `-X`). */
  goneIsFine: handlers(
    { when: 'set-missing', then: 'skip-line', report: 'ignorable' },
    { when: 'any', then: 'skip-line', report: 'not-converged' },
  ),
  /**
   * `-N --exist` of the live set of a rebuild: it exists with other options (the
   * maxelem the rebuild changes) is fine, the swap needs it only to exist; anything else
   * abandons the rebuild.
   */
  rebuildLive: handlers(
    { when: 'set-exists', then: 'skip-line', report: 'ignorable' },
    { when: 'any', then: 'skip-section', report: 'not-converged' },
  ),
} as const;

/** Handlers of the apply planners' lines, per line kind (docs/reference-behaviour.md §e.1), shared by every line of a kind. */
export const APPLY_HANDLERS = Object.freeze({
  /** `-N`: abort the set's section (its adds and deletes). */
  create: RULE.create,
  /** `-A` to a list. */
  addToList: RULE.addToList,
  /** `-A` to a hash set. */
  addToSet: RULE.addToSet,
  /** `-D` from a hash set. */
  del: RULE.delFromSet,
  /** `-D` from a list (not in the reference): a member set that no longer exists is not in the list. */
  delFromList: RULE.delFromList,
  /** `-X` of a set to destroy (not after a `-F`, unlike the reference: set-fate.ts). */
  destroy: RULE.destroy,
  /** `-X` of a set the save holds with another type or family, before it is recreated: if refused its create would fail too. */
  destroyToRecreate: RULE.clearTheWay,
});

/** Handlers of the reconcile planner's lines. */
export const RECONCILE_HANDLERS = Object.freeze({
  create: RULE.create,
  addToSet: RULE.addToSet,
  addToList: RULE.addToList,
  delFromSet: RULE.delFromSet,
  delFromList: RULE.delFromList,
  /** `-X` of an undesired owned set. */
  destroy: RULE.destroy,
  /** `-X` of a conflicting set before it is recreated: if refused its create would fail too. */
  destroyToRecreate: RULE.clearTheWay,
});

/** Handlers of a hitless rebuild's lines (rebuild.ts). */
export const REBUILD_HANDLERS = Object.freeze({
  /** Step 1: a leftover temporary that is already gone is fine; anything else abandons the rebuild. */
  clear: RULE.clearTheWay,
  /** Steps 2-4: abandon the rebuild; the live set keeps its old contents. */
  build: RULE.sectionDependsOn,
  /** Step 5: gone already is fine; otherwise the temporary stays and the set is reported. */
  cleanup: RULE.goneIsFine,
  /** The live set's own `-N --exist` before a rebuild: existing with other options is fine. */
  live: RULE.rebuildLive,
});

/** Handlers of a reset `-X` line: referenced sets stay (reported), gone sets are fine, anything else failed. */
export const RESET_DESTROY_HANDLERS: readonly ErrorHandler[] = RULE.destroy;

/** Section of a set's create and member lines (and a rebuild's lines 1-4) (the reference's `add/update-<prefixed>`). */
export function addOrUpdateSection(name: string): string {
  return `add/update-${name}`;
}

/** Section of a set's destroy (the reference's `delete-<prefixed>`). */
export function deleteSection(name: string): string {
  return `delete-${name}`;
}

/** Section of a rebuild's cleanup line (`-X` of the temporary), apart from the build. */
export function rebuildCleanupSection(live: string): string {
  return `rebuild-cleanup-${live}`;
}
