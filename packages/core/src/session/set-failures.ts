/**
 * Failures that repeat for every later line of the same set:
 * one bad set must never block another, so when such a failure is seen the session
 * drops the rest of that set's lines from the same attempt instead of learning the
 * same lesson one line and one `ipset restore` run at a time.
 *
 * Which failures repeat is what ipset 7.17 does, measured in a network namespace
 * (`printf '…' | ipset -exist restore`), not a guess:
 *
 * - `hash-full` on `add`: every later add of an element the set does not hold fails
 *   the same way (`Hash is full, cannot add more elements`). Re-adding a member the set
 *   already holds still succeeds under `-exist`, and a `del` frees room — so only
 *   later adds are dropped, and only up to the set's next line that is not an add.
 * - `set-missing` on `add`/`del` (`The set with the given name does not exist`,
 *   caught in userspace): every later add/del of that set fails until a line that
 *   could bring it back (a create).
 * - a type mismatch on `add`/`del`: the set exists with another type than the plan
 *   assumed, so no member of the planned grammar parses. ipset says
 *   `Syntax error: Elem separator in 10.0.0.1,tcp:80, but settype hash:net supports none.`
 *   (a named-port member sent to a hash:net) or
 *   `Syntax error: Second element is missing from 10.0.0.0/24.` (a network member sent
 *   to a hash:ip,port). Members are checked against their planned grammar before they
 *   are rendered, so these messages can only mean the kernel's set is of another type.
 *
 * Not repeating, measured too: `Set to be added/deleted/tested as element does not
 * exist.` (a list's member set is missing — another member may exist; it is also what
 * an address sent to a list:set gets, indistinguishably), any other syntax error (it
 * belongs to one member), and creating many sets (300 creates in one namespace
 * succeed, so `max-sets` is no concern of one set).
 */
import type { ClassifiedError, PlanLine } from '../types.js';

/** What a failure means for one later line of the same set in the same attempt. */
export type LaterLineFate = 'skip' | 'stop';

/** Decides the fate of later lines of the failing line's set; `undefined` when the failure does not repeat. */
export type LaterLineRule = (later: PlanLine) => LaterLineFate;

const TYPE_MISMATCH = [/^Syntax error: Elem separator in .*, but settype \S+ supports none\.?$/, /^Syntax error: Second element is missing from /];

/** True when `message` is one of ipset's messages for a member of another set type. */
export function isTypeMismatchMessage(message: string): boolean {
  return TYPE_MISMATCH.some((re) => re.test(message));
}

const onlyAdds: LaterLineRule = (later) => (later.op === 'add' ? 'skip' : 'stop');
const addsAndDels: LaterLineRule = (later) => (later.op === 'add' || later.op === 'del' ? 'skip' : 'stop');

/**
 * The rule for the lines after `line` (which failed with `error`) that name the same
 * set, or `undefined` when the failure says nothing about them. A rule answers
 * `skip` (the line would fail the same way), or `stop` (this line may change the set
 * — a delete, flush, destroy or create — so nothing after it can be predicted).
 * Lines of other sets are never passed to a rule.
 */
export function laterLinesOfSetFail(error: ClassifiedError, line: PlanLine): LaterLineRule | undefined {
  if (error.kind === 'hash-full' && line.op === 'add') return onlyAdds;
  if (line.op !== 'add' && line.op !== 'del') return undefined;
  if (error.kind === 'set-missing') return addsAndDels;
  if (error.kind === 'syntax' && isTypeMismatchMessage(error.message)) return addsAndDels;
  return undefined;
}
