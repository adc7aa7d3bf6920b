import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleForBrowser } from '../src/bundle.js';
import { browserUnavailable, launchBrowser } from '../src/chromium.js';
import type { Browser } from '../src/chromium.js';
import { serveDirectory } from '../src/serve.js';
import type { StaticServer } from '../src/serve.js';
import type { BrowserCheckResult } from '../src/browser/check.js';

const unavailable = browserUnavailable();
const lineCount = (text: string): number => text.split('\n').filter((l) => l !== '').length;
// In CI a missing browser fails the run (.ci/run installs Debian's chromium).
const required = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
if (unavailable !== undefined && !required) console.warn(`browser check skipped: ${unavailable}`);

describe.skipIf(unavailable !== undefined && !required)('core and the fake kernel in headless Chromium', () => {
  let dir: string;
  let server: StaticServer;
  let browser: Browser;
  let result: BrowserCheckResult;

  beforeAll(async () => {
    if (unavailable !== undefined) throw new Error(unavailable);
    dir = await mkdtemp(join(tmpdir(), 'ipsets-browser-check-'));
    await bundleForBrowser({ entries: { check: fileURLToPath(new URL('../src/browser/check.ts', import.meta.url)) }, outdir: dir });
    await writeFile(
      join(dir, 'index.html'),
      '<!doctype html><meta charset="utf-8"><title>ipsets browser check</title><pre id="result">running</pre><script src="check.js"></script>\n',
    );
    server = await serveDirectory(dir);
    browser = await launchBrowser();
    await browser.page.goto(server.url);
    await browser.page.waitForFunction(() => window.__ipsetsCheck !== undefined, undefined, { timeout: 30_000 });
    const published = await browser.page.evaluate(() => window.__ipsetsCheck);
    if (published === undefined || 'error' in published) {
      throw new Error(`the page failed: ${published?.error}\n${browser.console.join('\n')}`);
    }
    result = published;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('runs in a real browser: Chromium, and no Node process object', () => {
    expect(result.userAgent).toMatch(/HeadlessChrome|Chrome\//);
    expect(result.processType).toBe('undefined');
  });

  it('resends the batch a userspace error threw away, then converges', () => {
    expect(result.planted.text).toMatch(/^-A azure-npm-\w+ 10\.244\.1\.12$/);
    const [first, second] = result.sessionAttempts;
    expect(first).toMatchObject({ kind: 'syntax', side: 'userspace', errorLine: result.planted.line, action: 'resume-batch' });
    // The next attempt starts at the first add of the lost batch, two lines before the
    // failed one, and leaves out the failed line (its handler skips it).
    const planLines = lineCount(result.planText);
    expect(second).toMatchObject({ action: 'done' });
    expect(second!.lines).toBe(planLines - result.planted.line + 2);
    expect(result.sessionAttempts).toHaveLength(2);
  });

  it('reports the skipped line as not converged, and the apply driver recovers from a kernel-side fault', () => {
    // The planted line itself was skipped by its handler: that set stays dirty.
    expect(result.sessionConverged).toBe(false);
    expect(result.linesApplied).toBe(lineCount(result.planText) - 1);
    expect(result.driverFirst.converged).toBe(false);
    expect(result.driverFirst.failedSets.length).toBeGreaterThan(0);
    expect(result.driverSecond).toMatchObject({ converged: true });
  });

  it("ends with the kernel equal to the manager's desired state", () => {
    expect(result.problems).toEqual([]);
    expect(result.save).toContain('add azure-npm-');
    expect(result.save).toContain('10.244.1.12');
    expect(result.save).toContain('10.244.2.20');
  });
});
