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
} from './set-types.js';
export type { SetTypeInfo } from './set-types.js';
export { DEFAULT_HASHSIZE, DEFAULT_MAXELEM, MAX_HASHSIZE, MAX_MAXELEM, MIN_HASHSIZE, validateCapacity } from './capacity.js';
export type { SetCapacity } from './capacity.js';
export {
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
} from './naming.js';
export type { KernelNameOptions } from './naming.js';
export {
  canonicalMember,
  canonicalMemberForType,
  entryKey,
  hasNomatch,
  isCanonicalMember,
  isValidKernelSetName,
  isValidMember,
  memberFamily,
  stripNomatch,
  validateSetName,
} from './members.js';
export type { MemberKind } from './members.js';

// --- manager: desired sets and their dirty state ---
export { IPSetManager } from './manager/manager.js';
export type {
  CommitResult,
  DeleteOption,
  DirtySetInfo,
  IPSetManagerConfig,
  IPSetMode,
  IPSetSnapshot,
  ReferenceType,
} from './manager/manager.js';
export { PlanBasis } from './manager/basis.js';
export type { DirtySnapshot, PlanSetView } from './manager/basis.js';
export type { DirtyEntry, DirtyState, MemberSource } from './dirty-cache.js';

// --- plans ---
export { planApply, planApplyWithSave } from './plan-apply.js';
export type { PlanApplyOptions, PlanSource } from './plan-apply.js';
export { planReconcile } from './plan-reconcile.js';
export type { PlanReconcileOptions } from './plan-reconcile.js';
export { DEFAULT_GROWTH_CEILING } from './rebuild.js';
export type { GrowthPolicy } from './rebuild.js';
export { planResetDestroy, planResetFlush } from './plan-reset.js';
export { APPLY_HANDLERS, RESET_DESTROY_HANDLERS, RESET_FLUSH_HANDLERS } from './plan/handlers.js';

// --- session: render, run, classify ---
export { MAX_RESTORE_LINE_BYTES, renderLine, renderRestore } from './render.js';
export { DEFAULT_MAX_ATTEMPTS, createRestoreSession, runRestoreSession } from './session.js';
export type { Attempt, RestoreSession, RestoreSessionOptions, RunRestoreSessionOptions } from './session.js';
export { classifyIpsetError } from './classify.js';
export type { ClassifyOp, ClassifyOptions } from './classify.js';

// --- drivers: the loop over a port ---
export { applyIPSets, applyIPSetsWithSave, reconcileIPSets, resetIPSets } from './drivers.js';
export type { ApplyOptions, DriverOptions, ReconcileOptions, ResetOptions, ResetReport } from './drivers.js';

// --- parse: kernel output to snapshots ---
export { MAX_PARSE_PROBLEMS, PROBLEM_TEXT_LIMIT, parseListHeaders, parseListNames, parseSave } from './save-parser.js';
