/**
 * End-to-end: `ipsets demo` runs on the embedded fake kernel, prints the story and
 * passes its final check.
 */
import { describe, expect, it } from 'vitest';
import { ipsets, tempDir } from '../helpers/run-ipsets.js';

describe('ipsets demo', () => {
  it('runs the scenario and its final check passes', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const run = await ipsets(['demo'], { cwd: dir });
      expect(run.exitCode, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain('== 1. A node');
      expect(run.stdout).toContain('first apply');
      expect(run.stdout).toMatch(/churn 3: .* converged/);
      expect(run.stdout).toContain('set-in-use');
      expect(run.stdout).toContain('resume-batch');
      expect(run.stdout).toContain('kernel = desired state');
      expect(run.stdout).toContain('demo passed');
      expect(run.stdout).not.toContain('✘');
      expect(run.stdout).not.toContain('\u001b[');
    } finally {
      await cleanup();
    }
  });
});
