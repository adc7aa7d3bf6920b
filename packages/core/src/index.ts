/**
 * @ipsets/core — a pure planner for Linux ipsets. No I/O: drive it through an
 * {@link IpsetPort}.
 *
 * @packageDocumentation
 */
export { IpsetsError, QUOTE_LIMIT, isIpsetsError, quote } from './errors.js';
export type { IpsetsErrorCode, IpsetsErrorOptions } from './errors.js';
export type * from './types.js';

// --- set model, names, manager, apply plans ---
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
export {
  DEFAULT_HASHSIZE,
  DEFAULT_MAXELEM,
  MAX_HASHSIZE,
  MAX_MAXELEM,
  MIN_HASHSIZE,
  createSpecText,
  effectiveCapacity,
  validateCapacity,
} from './capacity.js';
export type { SetCapacity } from './capacity.js';
export { DEFAULT_GROWTH_CEILING, REBUILD_EXTRA_LINES, growMaxelem, pushRebuildLines, temporaryName } from './rebuild.js';
export {
  APPLY_HANDLERS,
  REBUILD_HANDLERS,
  RESET_DESTROY_HANDLERS,
  RESET_FLUSH_HANDLERS,
  addOrUpdateSection,
  deleteSection,
  rebuildCleanupSection,
} from './plan/handlers.js';
export type { GrowthPolicy, RebuildTarget } from './rebuild.js';
export {
  DEFAULT_OWNER,
  DIGEST_LENGTH,
  MIN_OWNER_LENGTH,
  OWNER_SEPARATORS,
  MAX_KERNEL_NAME_LENGTH,
  NAMING_SCHEMES,
  fnv1a32,
  isOwnedSetName,
  kernelName,
  nameDigest,
  sha256,
  sha256Base36,
  sha256Hex,
  validateKernelSetName,
  validateOwner,
  validateOwnerPrefix,
} from './naming.js';
export type { KernelNameOptions } from './naming.js';
export { DirtyCache, isEmptyUpdate } from './dirty-cache.js';
export type { DirtyCounts, DirtyEntry, DirtyState, MemberSource } from './dirty-cache.js';
export { IPSetManager } from './manager/manager.js';
export { PlanBasis } from './manager/basis.js';
export type { DirtySnapshot, PlanSetView } from './manager/basis.js';
export type {
  CommitResult,
  DeleteOption,
  DirtySetInfo,
  IPSetManagerConfig,
  IPSetMode,
  IPSetSnapshot,
  ReferenceType,
} from './manager/manager.js';
export { planApply, planApplyWithSave } from './plan-apply.js';
export type { PlanApplyOptions } from './plan-apply.js';

// --- members, save/list parsers, rendering, error classification ---
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
export { MAX_PARSE_PROBLEMS, PROBLEM_TEXT_LIMIT, parseListHeaders, parseListNames, parseSave } from './save-parser.js';
export { MAX_RESTORE_LINE_BYTES, renderLine, renderRestore } from './render.js';
export { classifyIpsetError } from './classify.js';
export type { ClassifyOp, ClassifyOptions } from './classify.js';

// --- recovery: sessions, reconcile/reset plans, drivers ---
export { DEFAULT_MAX_ATTEMPTS, createRestoreSession, pendingBatchStart, runRestoreSession } from './session.js';
export type { Attempt, RestoreSession, RestoreSessionOptions, RunRestoreSessionOptions } from './session.js';
export { planReconcile } from './plan-reconcile.js';
export type { PlanReconcileOptions } from './plan-reconcile.js';
export { planResetDestroy, planResetFlush } from './plan-reset.js';
export { DEFAULT_RESET_OWNER, applyIPSets, applyIPSetsWithSave, reconcileIPSets, resetIPSets } from './drivers.js';
export type { ApplyOptions, DriverOptions, ReconcileOptions, ResetOptions, ResetReport } from './drivers.js';
