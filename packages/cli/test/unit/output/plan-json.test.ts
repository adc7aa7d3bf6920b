import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSave, planReconcile } from '@ipsets/core';
import type { RestorePlan } from '@ipsets/core';
import { desiredStateOf, parseDesiredText } from '../../../src/desired/file.js';
import { planJsonChunks, planToJson } from '../../../src/output/plan-json.js';
import { bigPlan } from '../../helpers/big-plans.js';
import { plan } from '../../helpers/output-fixtures.js';
import { EXAMPLES } from '../../helpers/run-ipsets.js';

/** What `ipsets plan --json` printed before it was written in pieces: the whole document as one string. */
const asOneString = (p: RestorePlan) => JSON.stringify({ schemaVersion: 1, ...planToJson(p) }, null, 2) + '\n';
const streamed = (p: RestorePlan) => [...planJsonChunks(p)].join('');

describe('planToJson', () => {
  it('numbers lines, renders them, groups sections and counts ops', () => {
    const json = planToJson(plan);
    expect(json.lines[3]).toEqual({
      line: 4,
      op: 'del',
      set: 'o-upd',
      member: '10.0.0.9 nomatch',
      section: 's-o-upd',
      text: '-D o-upd 10.0.0.9',
      onError: [{ when: 'any', then: 'skip-line', report: 'not-converged' }],
    });
    expect(json.sections[1]).toEqual({ section: 's-o-upd', lines: [2, 4, 5] });
    expect(json.counts).toEqual({ create: 3, add: 2, del: 1, flush: 0, destroy: 1, swap: 0 });
  });
});

describe('planJsonChunks', () => {
  it('writes the same bytes as the document built as one string: small plans, notes, an empty plan', () => {
    expect(streamed(plan)).toBe(asOneString(plan));
    expect(streamed({ lines: [] })).toBe(asOneString({ lines: [] }));
    const noted: RestorePlan = { ...plan, notes: [{ set: 'o-old', kind: 'referenced-not-destroyed', message: 'in use' }] };
    expect(streamed(noted)).toBe(asOneString(noted));
  });

  it.each(['small.yaml', 'dual-stack.yaml', 'node.json'])('writes the same bytes for the example %s, against an empty kernel and against its own save', async (name) => {
    const desired = desiredStateOf(parseDesiredText(await readFile(join(EXAMPLES, name), 'utf8'), { source: name }));
    const fresh = planReconcile(desired, { sets: [], problems: [] }, []);
    expect(streamed(fresh)).toBe(asOneString(fresh));
    // A drifted kernel: every set's first member missing, a foreign-looking extra member in each.
    const save = desired.sets
      .filter((s) => s.spec !== 'setlist')
      .map((s) => [`create ${s.name} hash:net family inet hashsize 1024 maxelem 65536`, ...s.members.slice(1).map((m) => `add ${s.name} ${m}`)].join('\n'))
      .join('\n');
    const drift = planReconcile(desired, parseSave(`${save}\n`), []);
    expect(drift.lines.length).toBeGreaterThan(0);
    expect(streamed(drift)).toBe(asOneString(drift));
  });

  it('makes the document one line object at a time: its first piece is ready long before the last line is written', () => {
    // 40,000 lines, about 11 MB of JSON; a writer that built the document first would yield it whole.
    const big = bigPlan(4, 10_000);
    const chunks = planJsonChunks(big);
    const first = chunks.next().value ?? '';
    expect(first.length).toBeLessThan(1024);
    let total = first.length;
    let largest = first.length;
    let count = 1;
    for (const chunk of chunks) {
      total += chunk.length;
      largest = Math.max(largest, chunk.length);
      count++;
    }
    expect(total).toBeGreaterThan(10_000_000);
    expect(largest).toBeLessThan(64 * 1024);
    expect(count).toBeGreaterThan(40_000);
  });

  it('writes the same bytes for a plan whose sections hold thousands of lines each', () => {
    const big = bigPlan(3, 3_000);
    expect(streamed(big)).toBe(asOneString(big));
  });
});
