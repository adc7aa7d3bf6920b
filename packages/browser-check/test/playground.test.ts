import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, bundleForBrowser } from '../src/bundle.js';
import { browserUnavailable, launchBrowser } from '../src/chromium.js';
import type { Browser } from '../src/chromium.js';
import { serveDirectory } from '../src/serve.js';
import type { StaticServer } from '../src/serve.js';

const unavailable = browserUnavailable();
const required = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
if (unavailable !== undefined && !required) console.warn(`playground test skipped: ${unavailable}`);
/** Where the screenshot of the finished apply goes: IPSETS_PLAYGROUND_SCREENSHOT, else a folder of this run (never a fixed /tmp path another user may own). */
const screenshotPath = async (): Promise<string> =>
  process.env.IPSETS_PLAYGROUND_SCREENSHOT ?? join(await mkdtemp(join(tmpdir(), 'ipsets-playground-shot-')), 'playground.png');

describe.skipIf(unavailable !== undefined && !required)('the playground page in headless Chromium', () => {
  let dir: string;
  let server: StaticServer;
  let browser: Browser;

  beforeAll(async () => {
    if (unavailable !== undefined) throw new Error(unavailable);
    dir = await mkdtemp(join(tmpdir(), 'ipsets-playground-'));
    const page = join(REPO_ROOT, 'examples/playground');
    await bundleForBrowser({ entries: { playground: join(page, 'playground.ts') }, outdir: dir });
    await copyFile(join(page, 'index.html'), join(dir, 'index.html'));
    server = await serveDirectory(dir);
    browser = await launchBrowser();
    await browser.page.goto(server.url);
    await browser.page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('shows a plan with sections and handlers for a pasted desired file and ipset save', async () => {
    const { page } = browser;
    await page.fill('#desired', await readFile(join(REPO_ROOT, 'examples/small.yaml'), 'utf8'));
    await page.fill(
      '#save',
      'create ipsets-3456789012 hash:net family inet hashsize 1024 maxelem 65536\nadd ipsets-3456789012 10.244.9.9\n' +
        'create my-firewall hash:ip family inet hashsize 1024 maxelem 65536\nadd my-firewall 192.0.2.1\n',
    );
    await page.click('#plan-button');
    const rows = page.locator('#plan-lines tr');
    expect(await rows.count()).toBeGreaterThan(20);
    const codes = await page.locator('#plan-lines td.code > div:first-child').allTextContents();
    // The owned set that is not desired is flushed and destroyed; the foreign one is never named.
    expect(codes).toContain('-X ipsets-3456789012');
    expect(codes.join('\n')).not.toContain('my-firewall');
    expect(codes[0]).toMatch(/^-N ipsets-\w+ --exist nethash$/);
    const sections = await page.locator('#plan-lines .section').allTextContents();
    expect(new Set(sections).size).toBeGreaterThan(5);
    const handlers = await page.locator('#plan-lines .handlers').allTextContents();
    expect(handlers.some((h) => h.includes('skip-section'))).toBe(true);
    expect(await page.textContent('#plan-summary')).toMatch(/^\d+ lines in \d+ sections$/);
    expect(browser.console.filter((m) => m.startsWith('pageerror'))).toEqual([]);
  });

  it('steps through the apply with a userspace error: the lost batch is resent, the report names the skipped line', async () => {
    const { page } = browser;
    await page.click('#plan-button');
    // The fault goes on the second add of the plan's first batch (two adds to one set in a row).
    const codes = await page.locator('#plan-lines td.code > div:first-child').allTextContents();
    const setOf = (line: string | undefined): string | undefined => (line?.startsWith('-A ') ? line.split(' ')[1] : undefined);
    const start = codes.findIndex((line, i) => setOf(line) !== undefined && setOf(line) === setOf(codes[i + 1]));
    expect(start).toBeGreaterThan(0);
    const faultLine = start + 2;
    await page.selectOption('#fault-kind', 'userspace');
    await page.fill('#fault-line', String(faultLine));
    await page.click('#plan-button');

    await page.click('#step-button');
    const first = page.locator('#attempts li').first();
    expect(await first.textContent()).toContain(`planted: userspace error at line ${faultLine}`);
    // The planted message names the member on the failing line (it named 10.244.1.129 for a line with 10.244.1.12).
    const member = codes[faultLine - 1]!.split(' ')[2]!;
    expect(await first.textContent()).toContain(`cannot parse ${member}: resolving to IPv4 address failed`);
    expect(await first.textContent()).toContain(`syntax, caught in userspace at line ${faultLine}`);
    expect(await first.textContent()).toContain('next: resume-batch');
    expect(await page.locator('#attempts li').count()).toBe(1);
    expect(await page.locator('#report').textContent()).toBe('');

    await page.click('#run-button');
    const attempts = await page.locator('#attempts li').allTextContents();
    expect(attempts).toHaveLength(2);
    expect(attempts[1]).toContain('exit 0');
    // The second attempt starts at the batch's first add: it was never sent.
    expect(attempts[1]).toContain(`attempt 2: ${codes.length - start - 1} lines (plan lines ${start + 1}–${codes.length}, `);
    const report = await page.textContent('#report');
    expect(report).toContain('Not converged');
    expect(report).toContain(`line ${faultLine} ${codes[faultLine - 1]} — failed, syntax`);
    expect(report).toContain('stay dirty for the next apply');
    expect(report).toContain('1 set differs (all of them reported by the apply)');
    expect(await page.locator('#plan-lines tr.skipped').count()).toBe(1);
    expect(await page.textContent('#kernel-after')).toContain('create my-firewall hash:ip');
    expect(await page.textContent('#kernel-after')).not.toContain('ipsets-3456789012');

    // The next apply plans again from this kernel and retries what failed: it converges.
    expect(await page.isDisabled('#next-button')).toBe(false);
    await page.click('#next-button');
    const all = await page.locator('#attempts li').allTextContents();
    expect(all[2]).toBe('apply 2: the next apply plans again from the kernel as it is now');
    expect(all[3]).toMatch(/^apply 2, attempt 1: 1 lines \(plan lines 1–1\)/);
    expect(all[3]).toContain('exit 0');
    expect(all[3]).toContain('next: done');
    expect(await page.textContent('#plan-lines')).toContain(codes[faultLine - 1]!);
    const second = await page.textContent('#report');
    expect(second).toContain('Apply 2: Converged');
    expect(second).toContain('every owned set equals the desired state');
    expect(await page.isDisabled('#next-button')).toBe(true);
    const shot = await screenshotPath();
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`playground screenshot: ${shot}`);
  });

  it('a crash after k lines is retried and converges (JSON desired state, empty kernel); bad input is refused with the value quoted', async () => {
    const { page } = browser;
    await page.fill(
      '#desired',
      JSON.stringify({
        sets: [
          { type: 'namespace', name: 'shop', members: ['10.244.1.10', '10.244.1.11'] },
          { type: 'keyLabelOfNamespace', name: 'team', members: [{ type: 'namespace', name: 'shop' }] },
        ],
      }),
    );
    await page.fill('#save', '');
    await page.selectOption('#fault-kind', 'crash');
    await page.fill('#fault-line', '4');
    await page.click('#plan-button');
    await page.click('#run-button');
    const attempts = await page.locator('#attempts li').allTextContents();
    expect(attempts[0]).toContain('exit 137 (SIGKILL)');
    expect(attempts[0]).toContain('next: retry');
    expect(await page.textContent('#report')).toContain('Converged');
    expect(await page.textContent('#report')).toContain('every owned set equals the desired state');
    expect(await page.textContent('#kernel-before')).toBe('(empty)');
    expect(await page.textContent('#kernel-after')).toContain('create ipsets-');

    // Bad input: the error says where (line:col, as the CLI does), and no pane keeps the last plan or kernels.
    await page.fill('#desired', 'sets:\n  - type: namespace\n    name: shop\n    members: [10.244.1.10, 10.244.1.300]\n');
    await page.click('#plan-button');
    const error = await page.textContent('#error');
    expect(error).toMatch(/^line 4:28, sets\[0\]\.members\[1\]: .*"10\.244\.1\.300"/);
    expect(await page.isDisabled('#step-button')).toBe(true);
    expect(await page.isDisabled('#next-button')).toBe(true);
    expect(await page.locator('#plan-lines tr').count()).toBe(0);
    expect(await page.textContent('#plan-summary')).toBe('Press Plan.');
    for (const pane of ['#attempts', '#report', '#kernel-before', '#kernel-after']) expect(await page.textContent(pane), pane).toBe('');
    await page.fill('#desired', 'sets:\n  - { type: namespace, name: shop, members: [10.244.1.10]\n');
    await page.click('#plan-button');
    expect(await page.textContent('#error')).toMatch(/^line \d+:\d+: not valid YAML or JSON: /);
    await page.fill('#desired', '{"sets": [{"type": "namespace", "name": "shop", "members": ["10.0.0.1", 7]}]}');
    await page.click('#plan-button');
    expect(await page.textContent('#error')).toBe('line 1:73, sets[0].members[1]: expected a string, got 7');
  });

  it('fits a 420 px wide screen: nothing wider than the page, the plan scrolls inside its own box', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 420, height: 800 });
    try {
      await page.fill('#desired', await readFile(join(REPO_ROOT, 'examples/small.yaml'), 'utf8'));
      await page.click('#plan-button');
      await page.click('#run-button');
      const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, body: document.body.scrollWidth, view: window.innerWidth }));
      expect(widths.page).toBeLessThanOrEqual(widths.view);
      expect(widths.body).toBeLessThanOrEqual(widths.view);
      const cards = await page.evaluate(() => [...document.querySelectorAll('section.card')].map((c) => c.getBoundingClientRect().right));
      for (const right of cards) expect(right).toBeLessThanOrEqual(420);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
