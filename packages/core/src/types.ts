/**
 * The shared vocabulary of @ipsets: the data types of `vocabulary/`, one file per concept,
 * gathered here so that every package (and every core module) imports its types from one
 * place. `vocabulary/` imports nothing but itself and `errors.ts`, so importing this file
 * never runs an arrow back up from a lower folder (see docs/architecture.md "Inside core").
 */
export type * from './vocabulary/set-model.js';
export type * from './vocabulary/desired.js';
export type * from './vocabulary/port.js';
export type * from './vocabulary/snapshots.js';
export type * from './vocabulary/error-kinds.js';
export type * from './vocabulary/plan-types.js';
export type * from './vocabulary/report-types.js';
