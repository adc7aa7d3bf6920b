/**
 * The descriptors of the kernel locks this process holds. Every ipset child the port
 * starts inherits them (see `linux-port`), so a lock lives as long as any process that
 * acts for its writer: an `ipset restore` orphaned by a writer that was SIGKILLed keeps
 * the lock until it has exited, and the next writer plans from a kernel nobody changes.
 * (A flock belongs to the open file description; every inherited descriptor holds it.)
 */

const held = new Set<number>();

/** Records a lock descriptor this process now holds. */
export function addHeldLock(fd: number): void {
  held.add(fd);
}

/** Forgets a lock descriptor (before it is closed). */
export function removeHeldLock(fd: number): void {
  held.delete(fd);
}

/** The lock descriptors held now, for a child's extra stdio slots. */
export function heldLockDescriptors(): number[] {
  return [...held];
}
