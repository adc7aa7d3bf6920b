/**
 * Random `ipset restore` scripts for the fake-versus-real differential test: valid and
 * invalid lines over hash:ip (also inet6, with counters/comment/timeout, with skbinfo),
 * hash:net and hash:ip,port of both families (IPv6 in many spellings, CIDR limits,
 * family mismatches, ICMPv6 forms, hash full) and list:set (members of both
 * families), `test` lines whose messages print the element as ipset parsed it,
 * bracketed addresses, repeated create options, errors caught in
 * userspace and in the kernel, `-exist` (per line and per run), seed syntax
 * (`-N … --exist nethash`), long add runs that cross the 4096-byte batch boundary, and
 * swap/rename, including the temporary-set rebuild (create, fill, swap, destroy);
 * sets made by an earlier run (`setup`: in the kernel, not in the script's userspace
 * cache) and `create … -exist` of the other family over them; lines near the 1,023-byte
 * fgets limit (a comment whose closing quote is the chunk's last byte) and a last line
 * without a newline; inet6 ranges and `test`/`-T` of CIDRs and `/0`.
 *
 * Scripts avoid what the real kernel does at random (hash-size growth on big range
 * adds, `maxelem` during resizes), so any difference is a fidelity bug.
 */
import fc from 'fast-check';
import { adtLine, createLine, exoticLine, lineLimitLine, otherLine, run } from './lines.js';
import { POOL, createOf } from './pool.js';
import { rebuildLines, swapRenameLine } from './swap-rename.js';

/** One generated script. */
export interface RestoreScript {
  /** The restore text (each line ends in `\n`). */
  text: string;
  /** Run as `ipset -exist restore` (else `ipset restore`). */
  exist: boolean;
  /**
   * A restore run before the script, in an ipset process of its own, that must succeed:
   * its sets are in the kernel but not in the script's userspace set cache, as the sets
   * of a node made by an earlier run are.
   */
  setup?: string;
}

/**
 * Arbitrary restore scripts (see the module comment). A third of them are "clean":
 * no invalid lines, so they usually run to the end and compare a full final state.
 */
export function restoreScriptArb(): fc.Arbitrary<RestoreScript> {
  return fc.oneof({ weight: 1, arbitrary: scriptOf(true) }, { weight: 2, arbitrary: scriptOf(false) });
}

function scriptOf(clean: boolean): fc.Arbitrary<RestoreScript> {
  const item = fc.oneof(
    { weight: 2, arbitrary: createLine(clean).map((l) => [l]) },
    { weight: 12, arbitrary: adtLine(clean).map((l) => [l]) },
    { weight: 1, arbitrary: run(clean) },
    { weight: 2, arbitrary: otherLine(clean).map((l) => [l]) },
    { weight: clean ? 0 : 1, arbitrary: exoticLine().map((l) => [l]) },
    { weight: 1, arbitrary: lineLimitLine(clean).map((l) => [l]) },
    // swap and rename (restore-scripts/swap-rename.ts)
    { weight: 1, arbitrary: rebuildLines(clean) },
    { weight: 1, arbitrary: swapRenameLine(clean).map((l) => [l]) },
  );
  const withExist = fc.tuple(item, fc.integer({ min: 0, max: 9 })).map(([lines, r]) => (r === 0 ? lines.map((l, i) => (i === 0 && l.trim() !== '' && !l.startsWith('#') ? `${l} -exist` : l)) : lines));
  // Scripts start by creating most of the pool, so element lines usually reach the kernel.
  const prologue = fc
    .array(fc.integer({ min: clean ? 1 : 0, max: 9 }), { minLength: POOL.length, maxLength: POOL.length })
    .map((dice) =>
      POOL.filter((_, i) => dice[i]! > 0).map(createOf),
    );
  // Clean scripts run with -exist (duplicate adds and deletes of absent members are then fine).
  // A third of the scripts find the pool made by an earlier run (`setup`); one in eight
  // ends without a final newline (its last word is the end of an fgets chunk).
  return fc
    .tuple(prologue, fc.array(withExist, { minLength: 1, maxLength: 20 }), clean ? fc.constant(true) : fc.boolean(), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 7 }))
    .map(([pro, items, exist, where, end]) => {
      const lines = (list: string[]): string => list.map((l) => `${l}\n`).join('');
      const body = lines(where === 0 && pro.length > 0 ? items.flat() : [...pro, ...items.flat()]);
      const text = end === 0 ? body.slice(0, -1) : body;
      return where === 0 && pro.length > 0 ? { text, exist, setup: lines(pro) } : { text, exist };
    });
}
