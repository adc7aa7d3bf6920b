/**
 * deploy/systemd/ipsets-agent.service: parsed as systemd reads it, it keeps the
 * restart policy, signal handling and capabilities the operator's guide promises,
 * and `systemd-analyze verify` (where installed) has nothing to say about it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, helpFlags, runCli } from './helpers/repo.js';

const UNIT = `${ROOT}deploy/systemd/ipsets-agent.service`;

/** A unit file: section → key → values in order (a key may repeat). */
type Unit = Map<string, Map<string, string[]>>;

/**
 * The unit-file syntax systemd reads: `[Section]` headers, `Key=Value` lines, `#`/`;`
 * comments, and a trailing backslash continuing a line. An empty assignment resets
 * the key's earlier values, as systemd does for list settings.
 */
function parseUnit(text: string): Unit {
  const unit: Unit = new Map();
  let section: Map<string, string[]> | undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.trim();
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]!.trim()}`;
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = unit.get(header[1]!) ?? new Map();
      unit.set(header[1]!, section);
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0 || !section) throw new Error(`line ${i + 1}: not a Key=Value line in a section: ${JSON.stringify(line)}`);
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    section.set(key, value === '' ? [] : [...(section.get(key) ?? []), value]);
  }
  return unit;
}

function get(unit: Unit, section: string, key: string): string | undefined {
  const values = unit.get(section)?.get(key);
  return values?.at(-1);
}

/** Words of a space-separated list setting (every assignment of the key). */
function words(unit: Unit, section: string, key: string): string[] {
  return (unit.get(section)?.get(key) ?? []).flatMap((v) => v.split(/\s+/).filter(Boolean));
}

/** Seconds of a systemd time span (`30s`, `1min 30s`, `500ms`, plain seconds). */
function timeSpan(text: string): number {
  const units: Record<string, number> = { ms: 0.001, s: 1, sec: 1, min: 60, m: 60, h: 3600 };
  let total = 0;
  for (const part of text.split(/\s+/)) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|sec|min|m|h)?$/.exec(part);
    if (!m) throw new Error(`not a time span: ${JSON.stringify(text)}`);
    total += Number(m[1]) * units[m[2] ?? 's']!;
  }
  return total;
}

function contractSeconds(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.map((p) => p[0]).join('') !== text) throw new Error(`not a duration: ${JSON.stringify(text)}`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * units[p[2]!]!, 0);
}

const unit = parseUnit(readFileSync(UNIT, 'utf8'));
const execStart = (get(unit, 'Service', 'ExecStart') ?? '').split(/\s+/);

describe('the unit-file parser of this test', () => {
  it('reads sections, repeated keys, continuations and resets like systemd', () => {
    const parsed = parseUnit('[A]\n# c\nX=1\nX=2\n; c\nY=a \\\n  b\n[B]\nX=3\nX=\nX=4\n');
    expect(parsed.get('A')!.get('X')).toEqual(['1', '2']);
    expect(parsed.get('A')!.get('Y')).toEqual(['a  b']);
    expect(parsed.get('B')!.get('X')).toEqual(['4']);
    expect(() => parseUnit('X=1\n')).toThrow(/not a Key=Value line in a section/);
  });
});

describe('deploy/systemd/ipsets-agent.service', () => {
  it('starts `ipsets agent` on /etc/ipsets/desired.yaml with the real kernel and the shared lock file', () => {
    expect(get(unit, 'Service', 'Type') ?? 'simple').toBe('simple');
    expect(execStart.slice(0, 5)).toEqual(['/usr/bin/ipsets', 'agent', '/etc/ipsets/desired.yaml', '--kernel', 'linux']);
    const lock = execStart.indexOf('--lock-file');
    if (lock !== -1) expect(execStart[lock + 1]).toBe('/run/ipsets/host.lock');
    expect(execStart).not.toContain('--once');
  });

  it('runs Node with the young-generation limit the image sets (the agent\'s steady memory)', () => {
    const image = /^ENV NODE_OPTIONS=(\S+)$/m.exec(readFileSync(`${ROOT}deploy/image/Containerfile`, 'utf8'));
    expect(image?.[1]).toMatch(/^--max-semi-space-size=[1-9][0-9]*$/);
    expect(get(unit, 'Service', 'Environment')).toBe(`NODE_OPTIONS=${image![1]}`);
  });

  it('uses only flags that `ipsets agent --help` lists', () => {
    const help = runCli(['agent', '--help']);
    expect(help.status).toBe(0);
    const known = helpFlags(help.stdout);
    const used = execStart.filter((w) => w.startsWith('--')).map((w) => w.split('=')[0]!);
    const unknown = used.filter((f) => !known.has(f));
    expect(unknown, `flags not in \`ipsets agent --help\`: ${unknown.join(', ')}`).toEqual([]);
  });

  it('restarts on failure and on exit 5 (failure limit), never on exit 2 (bad input), and never gives up', () => {
    expect(get(unit, 'Service', 'Restart')).toBe('always');
    expect(timeSpan(get(unit, 'Service', 'RestartSec')!)).toBeGreaterThan(0);
    const prevent = words(unit, 'Service', 'RestartPreventExitStatus');
    expect(prevent).toContain('2');
    expect(prevent).not.toContain('5');
    expect(prevent).not.toContain('1');
    expect(get(unit, 'Unit', 'StartLimitIntervalSec')).toBe('0');
  });

  it('stops with SIGTERM to the agent alone and waits longer than its --grace before SIGKILL', () => {
    expect(get(unit, 'Service', 'KillSignal') ?? 'SIGTERM').toBe('SIGTERM');
    // mixed: SIGTERM reaches the agent only, so the ipset restore in flight is not
    // killed under it; the agent finishes or aborts it within --grace.
    expect(get(unit, 'Service', 'KillMode')).toBe('mixed');
    const graceIndex = execStart.indexOf('--grace');
    const grace = contractSeconds(graceIndex === -1 ? '20s' : execStart[graceIndex + 1]!);
    expect(timeSpan(get(unit, 'Service', 'TimeoutStopSec')!)).toBeGreaterThanOrEqual(grace + 5);
  });

  it('holds CAP_NET_ADMIN and no other capability, cannot gain privileges, and writes only /run/ipsets', () => {
    expect(words(unit, 'Service', 'AmbientCapabilities')).toEqual(['CAP_NET_ADMIN']);
    expect(words(unit, 'Service', 'CapabilityBoundingSet')).toEqual(['CAP_NET_ADMIN']);
    expect(get(unit, 'Service', 'NoNewPrivileges')).toBe('yes');
    expect(get(unit, 'Service', 'ProtectSystem')).toBe('strict');
    expect(words(unit, 'Service', 'ReadWritePaths')).toEqual(['/run/ipsets']);
    expect(get(unit, 'Service', 'RuntimeDirectory')).toBe('ipsets');
    // Other writers share the lock: the folder outlives a restart of the agent.
    expect(get(unit, 'Service', 'RuntimeDirectoryPreserve')).toBe('yes');
    // Only root may open (and so flock) the lock file or read a staged restore text.
    expect(get(unit, 'Service', 'RuntimeDirectoryMode')).toBe('0700');
    expect(words(unit, 'Service', 'RestrictAddressFamilies')).toContain('AF_NETLINK');
  });

  it('is enabled into multi-user.target', () => {
    expect(get(unit, 'Install', 'WantedBy')).toBe('multi-user.target');
  });

  it('`systemd-analyze verify` reports nothing (skipped where systemd is not installed)', (ctx) => {
    const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
    if (probe.status !== 0) ctx.skip('systemd-analyze is not installed');
    // verify checks that ExecStart's binary exists: give it a root with /usr/bin/ipsets and the system's units.
    const root = mkdtempSync(join(tmpdir(), 'ipsets-h5-systemd-'));
    try {
      mkdirSync(join(root, 'usr/bin'), { recursive: true });
      mkdirSync(join(root, 'etc/systemd/system'), { recursive: true });
      writeFileSync(join(root, 'usr/bin/ipsets'), '#!/bin/sh\n');
      chmodSync(join(root, 'usr/bin/ipsets'), 0o755);
      for (const dir of ['/usr/lib/systemd/system', '/lib/systemd/system']) {
        if (existsSync(dir)) {
          cpSync(dir, join(root, 'usr/lib/systemd/system'), { recursive: true, dereference: false });
          break;
        }
      }
      cpSync(UNIT, join(root, 'etc/systemd/system/ipsets-agent.service'));
      const verify = spawnSync('systemd-analyze', ['verify', `--root=${root}`, 'ipsets-agent.service'], { encoding: 'utf8' });
      expect(verify.stderr + verify.stdout).toBe('');
      expect(verify.status).toBe(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
