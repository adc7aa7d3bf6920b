import { describe, expect, it } from 'vitest';
import { reconcileIPSets } from '@ipsets/core';
import type { IpsetPort } from '@ipsets/core';
import { createFakePort, FakeKernel } from '@ipsets/fake-kernel';
import { desiredStateOf, parseDesiredText } from '../../../src/desired/file.js';
import { formatApplyReport, reportToJson } from '../../../src/output/apply-report.js';
import { report } from '../../helpers/output-fixtures.js';

describe('formatApplyReport', () => {
  it('shows attempts, skipped lines with reasons, sets in use and not converged, and the verdict', () => {
    const text = formatApplyReport(report, { labels: new Map([['o-upd', 'ns-upd']]), durationMs: 12.3 });
    expect(text).toContain('applied 6 of 7 lines in 2 attempt(s) in 12 ms');
    expect(text).toContain('attempt 1: 7 lines, exit 1: set-in-use (kernel) at line 7 "Set cannot be destroyed: it is in use by a kernel component" → skip-line');
    expect(text).toContain('line 7: -X o-old  — set-in-use: Set cannot be destroyed');
    expect(text).toContain('[in-use]');
    expect(text).toContain('in use (referenced by a kernel component, so not destroyed):\n  o-old\n');
    expect(text).toContain('not converged:\n  ns-upd (o-upd)\n');
    expect(text.trimEnd().endsWith('NOT converged')).toBe(true);
  });

  it('reportToJson drops the plan and keeps the rest', () => {
    const json = reportToJson(report, 1.23456);
    expect('plan' in json).toBe(false);
    expect(json.durationMs).toBe(1.235);
    expect(json.skipped).toHaveLength(1);
  });
});

describe('an apply report quotes ipset\'s stderr only in part', () => {
  it('a restore that prints 20 MB of stderr gives a text and a JSON report under 64 KiB (200 MB of stderr made a 200 MB report)', async () => {
    const desired = desiredStateOf(parseDesiredText('sets:\n  - { type: namespace, name: shop, members: [10.0.0.1] }\n'));
    const kernel = new FakeKernel();
    const real = createFakePort(kernel);
    const huge = `ipset v7.17: Error in line 1: Kernel error received: ${'e'.repeat(20 * 1024 * 1024)}\n`;
    const port: IpsetPort = { ...real, restore: async () => ({ exitCode: 1, stdout: '', stderr: huge }) };
    const report = await reconcileIPSets(desired, port);
    expect(report.converged).toBe(false);
    expect(Buffer.byteLength(formatApplyReport(report))).toBeLessThan(64 * 1024);
    expect(Buffer.byteLength(JSON.stringify(reportToJson(report)))).toBeLessThan(64 * 1024);
    expect(formatApplyReport(report)).toContain('(cut: ipset printed');
  });
});
