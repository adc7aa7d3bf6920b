/**
 * @ipsets/fake-kernel — a fake Linux kernel faithful to ipset 7.17 (`FakeKernel`: the
 * restore/save/list semantics, one C behaviour per file under `fake/`), an
 * `IpsetPort` over it. It depends on `@ipsets/core` only and uses no Node built-ins, so
 * a browser page, a simulator or a production command can load it. The invariant
 * checks that compare a kernel with a desired state (test assertions) are the
 * `@ipsets/fake-kernel/invariants` subpath; the state file kept between processes is
 * the Node-only subpath `@ipsets/fake-kernel/state-file`.
 *
 * @packageDocumentation
 */
export { FakeKernel } from './fake-kernel.js';
export type { CrashSignal, FakeKernelJSON, FakeKernelOptions, FaultSpec, RestoreOptions } from './fake-kernel.js';
export { createFakePort } from './fake-port.js';
export type { FakePortOptions } from './fake-port.js';
