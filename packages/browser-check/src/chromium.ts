/**
 * Headless Chromium for the browser tests: Debian's `chromium` package driven by
 * playwright-core over the DevTools protocol. No browser is ever downloaded: the
 * executable is `/usr/bin/chromium` (or `IPSETS_CHROMIUM`), each launch gets a fresh
 * profile directory, and the flags turn off everything that would talk to the network.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';

/** Where Debian installs Chromium. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** Flags of every launch. */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The Chromium executable to use. */
export function chromiumPath(): string {
  return process.env.IPSETS_CHROMIUM ?? DEFAULT_CHROMIUM;
}

/**
 * Why the browser tests cannot run here, or undefined when they can. In CI a missing
 * browser is a failure, not a skip (`.ci/run` installs it).
 */
export function browserUnavailable(): string | undefined {
  const path = chromiumPath();
  if (existsSync(path)) return undefined;
  return `no Chromium at ${path}: install Debian's chromium (apt-get install chromium) or set IPSETS_CHROMIUM`;
}

/** A launched browser with one page. */
export interface Browser {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Messages the page logged and errors it threw, for failure messages. */
  readonly console: string[];
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh profile and opens a page. */
export async function launchBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'ipsets-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args: [...CHROMIUM_FLAGS],
    viewport: { width: 1280, height: 900 },
    timeout: 60_000,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const console: string[] = [];
  page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => console.push(`pageerror: ${e.message}`));
  // Only the test's own server on loopback may be reached.
  await context.route(/.*/, (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:' || url.protocol === 'about:') return route.continue();
    return route.abort('blockedbyclient');
  });
  return {
    page,
    context,
    console,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
