/**
 * The shared vocabulary of @ipsets, one file per concept; this module gathers them so
 * that every package (and every core module) imports its types from one place.
 */
export type * from './model/set-model.js';
export type * from './model/desired.js';
export type * from './port.js';
export type * from './parse/snapshots.js';
export type * from './error-kinds.js';
export type * from './plan/plan-types.js';
export type * from './session/report-types.js';
