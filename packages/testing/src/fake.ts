/**
 * `@ipsets/testing/fake` — the fake kernel, its port and the invariant checks, without
 * fast-check. They live in `@ipsets/fake-kernel` now (import them from there); this
 * subpath re-exports that package for code written against it before.
 *
 * @packageDocumentation
 */
export * from '@ipsets/fake-kernel';
