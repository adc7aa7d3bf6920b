/**
 * swap and rename (the hitless-rebuild commands): a temporary set built, filled,
 * swapped with a pool set and destroyed (the rebuild pattern), plus swaps and renames
 * across types, families, lists, missing and same names. References from iptables
 * rules cannot be set up by a script; swap-rename.test.ts in @ipsets/exec-linux covers
 * them.
 */
import fc from 'fast-check';
import { POOL, createOf, ALL_NAMES } from './pool.js';
import type { SetType } from './pool.js';
import { element } from './elements.js';

/** Temporary set names (never in the pool): owned-looking ones as a rebuild makes them, and short ones. */
const TEMPS = ['azure-npm-1a2b3c4d5e6f7g8h9i0k', 't', 't2'];

/** A create line for temporary `name` with the type (and family) of pool set `like`, or another one. */
function tempCreate(name: string, like: { name: string; type: SetType }, sameType: boolean): string {
  if (sameType) return createOf({ name, type: like.type });
  return createOf({ name, type: like.type === 'hash:net' ? 'hash:ip,port' : 'hash:net' });
}

/** The rebuild pattern on one pool set, with twists that make it fail on purpose. */
export function rebuildLines(clean: boolean): fc.Arbitrary<string[]> {
  const twists = clean ? (['none', 'none', 'maxelem', 'keep-temp'] as const) : (['none', 'maxelem', 'keep-temp', 'other-type', 'no-temp', 'swap-back', 'destroy-live'] as const);
  return fc
    .tuple(
      fc.constantFrom(...POOL),
      fc.constantFrom(...TEMPS),
      fc.constantFrom(...twists),
      fc.integer({ min: 0, max: 6 }),
      fc.nat(),
    )
    .chain(([set, temp, twist, count, seed]) =>
      fc.array(element(set.type, true), { minLength: count, maxLength: count }).map((members) => {
        const lines: string[] = [];
        if (twist !== 'no-temp') {
          const create = tempCreate(temp, set, twist !== 'other-type');
          lines.push(twist === 'maxelem' && set.type !== 'list:set' ? `${create} maxelem ${2 + (seed % 5)}` : create);
        }
        for (const m of members) lines.push(`add ${temp} ${m}`);
        lines.push(`swap ${temp} ${set.name}`);
        if (twist === 'swap-back') lines.push(`swap ${set.name} ${temp}`);
        if (twist === 'destroy-live') lines.push(`destroy ${set.name}`);
        if (twist !== 'keep-temp') lines.push(`destroy ${temp}`);
        return lines;
      }),
    );
}

/** One swap or rename line between pool, temporary and missing names. */
export function swapRenameLine(clean: boolean): fc.Arbitrary<string> {
  const name = clean ? fc.constantFrom(...POOL.map((s) => s.name), ...TEMPS) : fc.constantFrom(...ALL_NAMES, ...TEMPS);
  return fc.oneof(
    fc.tuple(name, name).map(([a, b]) => `swap ${a} ${b}`),
    fc.tuple(name, name).map(([a, b]) => `rename ${a} ${b}`),
    fc.tuple(fc.constantFrom('-W', 'w', '-E', 'e'), name, name).map(([cmd, a, b]) => `${cmd} ${a} ${b}`),
    // A list membership is a reference: renaming a listed set is refused, swapping it is not.
    fc.constantFrom('add l m\nrename m mm', 'add l m\nswap m a', 'add l2 n\nswap l l2'),
    ...(clean ? [] : [fc.constantFrom('swap a', 'rename a', 'swap a n m', `rename a ${'r'.repeat(32)}`)]),
  );
}
