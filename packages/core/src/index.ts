/**
 * @ipsets/core — a pure planner for Linux ipsets. No I/O: drive it through an
 * {@link IpsetPort}.
 *
 * @packageDocumentation
 */
export { IpsetsError, isIpsetsError, quote } from './errors.js';
export type { IpsetsErrorCode, IpsetsErrorOptions } from './errors.js';
export type * from './types.js';

// --- set model, names, manager, apply plans ---

// --- members, save/list parsers, rendering, error classification ---
export {
  canonicalMember,
  canonicalMemberForType,
  entryKey,
  hasNomatch,
  isValidKernelSetName,
  isValidMember,
  stripNomatch,
  validateSetName,
} from './members.js';
export type { MemberKind } from './members.js';
export { parseListHeaders, parseListNames, parseSave } from './save-parser.js';
export { renderLine, renderRestore } from './render.js';
export { classifyIpsetError } from './classify.js';
export type { ClassifyOp, ClassifyOptions } from './classify.js';

// --- recovery: sessions, reconcile/reset plans, drivers ---
