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
/** Where the screenshot of the finished apply goes. */
const SCREENSHOT = process.env.IPSETS_PLAYGROUND_SCREENSHOT ?? join(tmpdir(), 'ipsets-playground.png');

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
      'create azure-npm-3456789012 hash:net family inet hashsize 1024 maxelem 65536\nadd azure-npm-3456789012 10.244.9.9\n' +
        'create my-firewall hash:ip family inet hashsize 1024 maxelem 65536\nadd my-firewall 192.0.2.1\n',
    );
    await page.click('#plan-button');
    const rows = page.locator('#plan-lines tr');
    expect(await rows.count()).toBeGreaterThan(20);
    const codes = await page.locator('#plan-lines td.code > div:first-child').allTextContents();
    // The owned set that is not desired is flushed and destroyed; the foreign one is never named.
    expect(codes).toContain('-X azure-npm-3456789012');
    expect(codes.join('\n')).not.toContain('my-firewall');
    expect(codes[0]).toMatch(/^-N azure-npm-\w+ --exist nethash$/);
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
    expect(await page.textContent('#kernel-after')).not.toContain('azure-npm-3456789012');
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    console.log(`playground screenshot: ${SCREENSHOT}`);
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
    expect(await page.textContent('#kernel-after')).toContain('create azure-npm-');

    await page.fill('#desired', 'sets:\n  - type: namespace\n    name: shop\n    members: [10.244.1.300]\n');
    await page.click('#plan-button');
    const error = await page.textContent('#error');
    expect(error).toMatch(/^sets\[0\]: .*"10\.244\.1\.300"/);
    expect(await page.isDisabled('#step-button')).toBe(true);
  });
});
