/**
 * @ipsets/core — a pure planner for Linux ipsets. No I/O: drive it through an
 * {@link IpsetPort}.
 *
 * The entry exports what programs and the other @ipsets packages use; the building
 * blocks behind it (the dirty cache, rebuild lines, section names, digests …) are
 * internal, and core's own tests import them from `src/`. The names are pinned by
 * `test/unit/exports.test.ts` and listed in docs/architecture.md.
 *
 * @packageDocumentation
 */
export { IpsetsError, QUOTE_LIMIT, isIpsetsError, quote } from './errors.js';
export type { IpsetsErrorCode, IpsetsErrorDetails, IpsetsErrorDetailsMap, IpsetsErrorOptions } from './errors.js';
export type * from './types.js';

// --- model: set types, capacity, names, members ---
export {
  CREATE_SPECS,
  EMPTY_SET,
  EMPTY_SET_NAME,
  INET6_NAME_SUFFIX,
  SET_TYPES,
  familyOfSpec,
  isCreateSpec,
  isSetType,
  kernelTypeOfSpec,
  prefixedName,
  sameSetFamily,
  setTypeInfo,
  validateSetMetadata,
  validateUnprefixedName,
} from './model/set-types.js';
export type { SetTypeInfo } from './model/set-types.js';
export { DEFAULT_HASHSIZE, DEFAULT_MAXELEM, MAX_HASHSIZE, MAX_MAXELEM, MIN_HASHSIZE, validateCapacity } from './model/capacity.js';
export type { SetCapacity } from './model/capacity.js';
export {
  DEFAULT_NAMING_SCHEME,
  DEFAULT_OWNER,
  DIGEST_LENGTH,
  MIN_OWNER_LENGTH,
  OWNER_SEPARATORS,
  MAX_KERNEL_NAME_LENGTH,
  NAMING_SCHEMES,
  isOwnedSetName,
  kernelName,
  validateKernelSetName,
  validateOwner,
  validateOwnerPrefix,
} from './model/naming.js';
export type { KernelNameOptions } from './model/naming.js';
export {
  canonicalMember,
  canonicalMemberForType,
  entryKey,
  hasNomatch,
  isCanonicalMember,
  isValidMember,
  memberFamily,
  stripNomatch,
} from './model/members.js';
export { MAX_SET_NAME_LENGTH, isValidKernelSetName, validateSetName } from './model/set-names.js';
export { desiredMemberCount } from './model/host-set.js';
export type { MemberKind } from './model/members.js';

// --- manager: desired sets and their dirty state ---
export { DEFAULT_MAX_FAILURES, IPSetManager } from './manager/manager.js';
export type {
  CommitResult,
  DeleteOption,
  DirtySetInfo,
  IPSetManagerConfig,
  IPSetMode,
  IPSetSnapshot,
  ReferenceType,
} from './manager/manager.js';
export { buildDesiredState } from './manager/bulk.js';
export type { DesiredSetInput } from './manager/bulk.js';
export { SetMembers } from './manager/set-members.js';
export type { MemberProblemHandler } from './manager/set-members.js';
export { PlanBasis } from './manager/basis.js';
export type { DirtySnapshot, PlanSetView } from './manager/basis.js';
export type { DirtyEntry, DirtyState, MemberSource } from './manager/dirty-cache.js';

// --- plans ---
export { planApply, planApplyWithSave } from './plan/plan-apply.js';
export type { PlanApplyOptions, PlanSource } from './plan/plan-apply.js';
export { planReconcile } from './plan/plan-reconcile.js';
export { PreparedDesiredState } from './plan/reconcile-validate.js';
export type { PlanReconcileOptions } from './plan/plan-reconcile.js';
export { DEFAULT_GROWTH_CEILING, lineSubject } from './plan/rebuild.js';
export type { GrowthPolicy } from './plan/rebuild.js';
export { planResetDestroy } from './plan/plan-reset.js';
export { APPLY_HANDLERS, RESET_DESTROY_HANDLERS } from './plan/handlers.js';

// --- session: render, run, classify ---
export { MAX_RESTORE_LINE_BYTES, renderLine, renderRestore } from './session/render.js';
export { DEFAULT_MAX_ATTEMPTS, createRestoreSession, runRestoreSession } from './session/session.js';
export type { Attempt, RestoreSession, RestoreSessionOptions, RunRestoreSessionOptions } from './session/session.js';
export { classifyIpsetError } from './session/classify.js';
export type { ClassifyOp, ClassifyOptions } from './session/classify.js';

// --- drivers: the loop over a port ---
export { applyIPSets, applyIPSetsWithSave, reconcileIPSets, resetIPSets } from './drivers/drivers.js';
export type { ApplyOptions, DriverOptions, ReconcileOptions, ResetOptions, ResetReport } from './drivers/drivers.js';

// --- parse: kernel output to snapshots ---
export { MAX_PARSE_PROBLEMS, PROBLEM_TEXT_LIMIT, SaveReader, parseSave } from './parse/save-parser.js';
export { parseListHeaders, parseListNames } from './parse/list-parser.js';
export { parseCreateOptions, savedSet } from './parse/saved-members.js';
