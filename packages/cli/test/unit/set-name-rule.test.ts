/**
 * The set-name rule is written once (core's `model/set-names.ts`): the desired file,
 * the manager and the render boundary give every hostile name the same verdict for
 * the same reason. The only difference is the length limit of the role: a set's own
 * name (the desired file, the manager) is hashed into its kernel name and may be
 * longer than the kernel's 31 bytes; a name on a restore line is a kernel name.
 */
import { describe, expect, it } from 'vitest';
import { IPSetManager, isIpsetsError, renderRestore } from '@ipsets/core';
import { validateDesiredDocument } from '../../src/desired/file.js';

type Verdict = { ok: true } | { ok: false; reason: string; message: string };

/** The reason of an `Invalid set name "…": <reason>; expected …` message. */
function reasonOf(message: string): string {
  // The name is quoted (and cut when long); every reason starts with "it".
  const m = /[Ii]nvalid set name .*?: (it .*?); expected /s.exec(message);
  return m === null ? `(no reason in ${JSON.stringify(message)})` : m[1]!;
}

function refused(message: string): Verdict {
  return { ok: false, reason: reasonOf(message), message };
}

function viaDesiredFile(name: string): Verdict {
  const result = validateDesiredDocument({ sets: [{ type: 'namespace', name }] });
  if (result.ok) return { ok: true };
  const problem = result.problems.find((p) => p.path === 'sets[0].name');
  return problem === undefined ? { ok: false, reason: '(other problem)', message: JSON.stringify(result.problems) } : refused(problem.message);
}

function viaManager(name: string): Verdict {
  try {
    new IPSetManager().createIPSets([{ name, type: 'namespace' }]);
    return { ok: true };
  } catch (error) {
    expect(isIpsetsError(error, 'INVALID_SET_NAME')).toBe(true);
    return refused((error as Error).message);
  }
}

function viaRender(name: string): Verdict {
  try {
    renderRestore({ lines: [{ op: 'create', set: name, spec: 'nethash', section: 's', onError: [] }] });
    return { ok: true };
  } catch (error) {
    expect(isIpsetsError(error, 'INVALID_SET_NAME')).toBe(true);
    return refused((error as Error).message);
  }
}

const HOSTILE: readonly [label: string, name: string][] = [
  ['a single quote', "a'b"],
  ['a double quote', 'a"b'],
  ['a blank', 'a b'],
  ['a tab', 'a\tb'],
  ['a newline', 'a\nb'],
  ['a carriage return', 'a\rb'],
  ['a NUL', 'a\u0000b'],
  ['DEL', 'a\u007f'],
  ['a "#"', 'a#b'],
  ['non-ASCII', 'café'],
  ['an emoji', 'a\u{1F600}'],
  ['empty', ''],
  ['a leading "-"', '-x'],
  ['a leading blank', ' x'],
  ['longer than any name', 'x'.repeat(513)],
];

const FINE: readonly string[] = ['a', '1', 'app:web', 'k8s.io/role:', 'a-b_c.d:e/f', 'x'.repeat(31), 'azure-npm-0123456789abcdefghij'];

describe('one set-name rule for the desired file, the manager and the render boundary', () => {
  it.each(HOSTILE)('%s: refused by all three for the same reason, in the same message', (_label, name) => {
    const file = viaDesiredFile(name);
    const manager = viaManager(name);
    const render = viaRender(name);
    expect(file.ok).toBe(false);
    expect(manager.ok).toBe(false);
    expect(render.ok).toBe(false);
    if (file.ok || manager.ok || render.ok) return;
    expect(file.reason).not.toMatch(/^\(/);
    // The length limit is the role's; every other reason is the same text.
    if (name.length > 31) {
      expect(file.reason).toBe(manager.reason);
      expect(render.reason).toMatch(/at most 31/);
    } else {
      expect(new Set([file.reason, manager.reason, render.reason]).size).toBe(1);
    }
    // One message: the desired file says what the manager says (its problems end without a period).
    expect(file.message).toBe(manager.message.replace(/\.$/, ''));
  });

  it.each(FINE)('%j: accepted by all three', (name) => {
    expect(viaDesiredFile(name)).toEqual({ ok: true });
    expect(viaManager(name)).toEqual({ ok: true });
    expect(viaRender(name)).toEqual({ ok: true });
  });

  it('a set name of 32 to 512 bytes is hashed into a kernel name: the file and the manager take it, a restore line does not', () => {
    for (const name of ['x'.repeat(32), 'app.kubernetes.io/name:' + 'v'.repeat(63), 'x'.repeat(512)]) {
      expect(viaDesiredFile(name)).toEqual({ ok: true });
      expect(viaManager(name)).toEqual({ ok: true });
      const render = viaRender(name);
      expect(render.ok).toBe(false);
      if (!render.ok) expect(render.reason).toBe(`it is ${name.length} characters long (at most 31)`);
    }
  });
});
