/**
 * The restore plans of a reset (docs/reference-behaviour.md §f, §d.3): destroys only,
 * never a flush (set-fate.ts). The driver destroys the owned lists nothing references
 * first, which releases their members, then — after reading which sets are still
 * referenced — the rest. Error handlers follow the reference's reset destroy handler
 * (docs/reference-behaviour.md §e.1), with outcomes instead of callbacks.
 */
import { IpsetsError, quote } from '../errors.js';
import { isOwnedSetName, validateOwnerPrefix } from '../model/naming.js';
import { RESET_DESTROY_HANDLERS, deleteSection } from './handlers.js';
import type { PlanLine, PlanNote, RestorePlan } from '../types.js';

function unique(names: Iterable<string>): string[] {
  return [...new Set(names)];
}

/**
 * The destroy plan of a reset: `-X <name>` for each name that is not in `leaked`, in
 * the order given. Leaked names (still referenced after the owned lists went, e.g. by an
 * iptables rule or a leaked kernel reference count) get no line — destroying them
 * would fail and, in the reference, burn one of its five tries each (issue #2997) — but a
 * `referenced-not-destroyed` note, so the report lists them as in use. With `owner`,
 * every name must be owned ({@link isOwnedSetName}): the guard that keeps a reset from
 * ever touching a set it does not own (the reference's substring `grep azure-npm-`
 * matched names that merely contain the prefix, docs/reference-behaviour.md §g.2.12).
 *
 * @throws IpsetsError `INVALID_ARGUMENT` for an invalid owner prefix or a name it does not own.
 */
export function planResetDestroy(names: Iterable<string>, leaked: Iterable<string> = [], owner?: string): RestorePlan {
  if (owner !== undefined) validateOwnerPrefix(owner);
  const held = new Set(leaked);
  const lines: PlanLine[] = [];
  const notes: PlanNote[] = [];
  for (const name of unique(names)) {
    if (owner !== undefined && !isOwnedSetName(name, owner)) {
      throw new IpsetsError(
        'INVALID_ARGUMENT',
        `Set ${quote(name)} is not owned by ${quote(owner)} (expected the owner prefix followed by one or more of 0-9 and a-z); a reset only destroys owned sets.`,
        { details: { name, owner } },
      );
    }
    if (held.has(name)) {
      notes.push({
        set: name,
        kind: 'referenced-not-destroyed',
        message: `set ${quote(name)} is still referenced (an iptables rule, a list or a leaked kernel count); it is left in the kernel`,
      });
      continue;
    }
    lines.push({ op: 'destroy', set: name, section: deleteSection(name), onError: RESET_DESTROY_HANDLERS });
  }
  return notes.length > 0 ? { lines, notes } : { lines };
}
