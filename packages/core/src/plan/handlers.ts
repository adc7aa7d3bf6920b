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
  /** Apply's `-F` of a set to destroy: aborting the section drops its `-X`. */
  flushThenDestroy: handlers(
    { when: 'set-missing', then: 'skip-section', report: 'ignorable' },
    { when: 'any', then: 'skip-section', report: 'not-converged' },
  ),
  /**
   * Apply's `-X`, after the `-F` of the same section: a set already gone failed that
   * flush, which dropped this line, so `set-missing` is left to `any` as in the reference.
   */
  destroyAfterFlush: handlers(
    { when: 'set-in-use', then: 'skip-line', report: 'in-use' },
    { when: 'any', then: 'skip-line', report: 'not-converged' },
  ),
  /** `-X` on its own (reconcile, reset): referenced sets stay (reported), gone sets are fine. */
  destroy: handlers(
    { when: 'set-in-use', then: 'skip-line', report: 'in-use' },
    { when: 'set-missing', then: 'skip-line', report: 'ignorable' },
    { when: 'any', then: 'skip-line', report: 'not-converged' },
  ),
  /** A line the rest of its section depends on (a flush before a refill, a rebuild's build): on failure the section goes. */
  sectionDependsOn: handlers({ when: 'any', then: 'skip-section', report: 'not-converged' }),
  /** `-X` clearing the way for its section (a leftover temporary, a set to recreate): gone is fine, refused abandons the section. */
  clearTheWay: handlers(
    { when: 'set-missing', then: 'skip-line', report: 'ignorable' },
    { when: 'any', then: 'skip-section', report: 'not-converged' },
  ),
  /** A line on its own whose goal holds when the set is gone (a reset's `-F`, a rebuild's cleanup `-X`). */
  goneIsFine: handlers(
    { when: 'set-missing', then: 'skip-line', report: 'ignorable' },
    { when: 'any', then: 'skip-line', report: 'not-converged' },
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
  /** `-F` of a set to destroy: aborting the section drops its `-X`. */
  flush: RULE.flushThenDestroy,
  /** `-X`. */
  destroy: RULE.destroyAfterFlush,
  /**
   * `-F` of a set whose kernel contents are not what the save shows readably, before
   * re-adding all its members (not in the reference): on failure the set's section is abandoned.
   */
  resync: RULE.sectionDependsOn,
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
  /** `-F` of a set whose saved contents cannot be echoed, before refilling it. */
  flushToRefill: RULE.sectionDependsOn,
});

/** Handlers of a hitless rebuild's lines (rebuild.ts). */
export const REBUILD_HANDLERS = Object.freeze({
  /** Step 1: a leftover temporary that is already gone is fine; anything else abandons the rebuild. */
  clear: RULE.clearTheWay,
  /** Steps 2-4: abandon the rebuild; the live set keeps its old contents. */
  build: RULE.sectionDependsOn,
  /** Step 5: gone already is fine; otherwise the temporary stays and the set is reported. */
  cleanup: RULE.goneIsFine,
});

/** Handlers of a reset `-F` line: a set that is gone needs no flush; anything else leaves it unflushed. */
export const RESET_FLUSH_HANDLERS: readonly ErrorHandler[] = RULE.goneIsFine;

/** Handlers of a reset `-X` line: referenced sets stay (reported), gone sets are fine, anything else failed. */
export const RESET_DESTROY_HANDLERS: readonly ErrorHandler[] = RULE.destroy;

/** Section of a set's create, member lines and resync flush (the reference's `add/update-<prefixed>`). */
export function addOrUpdateSection(name: string): string {
  return `add/update-${name}`;
}

/** Section of a set's flush and destroy (the reference's `delete-<prefixed>`). */
export function deleteSection(name: string): string {
  return `delete-${name}`;
}

/** Section of a rebuild's cleanup line (`-X` of the temporary), apart from the build. */
export function rebuildCleanupSection(live: string): string {
  return `rebuild-cleanup-${live}`;
}
