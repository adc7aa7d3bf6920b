/**
 * Licence and credit (there was no root LICENSE and nothing credited Azure NPM): the
 * repository's LICENSE is MIT for "The @ipsets authors", its NOTICE names Azure NPM
 * (MIT, Microsoft Corporation) as the reference behaviour this project implements, and
 * every package says the same: `license: MIT`, and each published package ships the
 * root's LICENSE and NOTICE byte for byte (its `files` list both; the packed tarballs
 * are checked in packages.test.ts).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PUBLISHED, ROOT } from './helpers/repo.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('the repository\'s licence and credit', () => {
  it('LICENSE is the MIT licence of the @ipsets authors', () => {
    expect(read('LICENSE')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} The @ipsets authors\n\nPermission is hereby granted, free of charge/);
  });

  it('NOTICE names Azure NPM, its licence and its copyright holder as the reference behaviour', () => {
    const notice = read('NOTICE');
    expect(notice).toContain('Azure Network Policy\nManager (Azure NPM)');
    expect(notice).toContain('Copyright (c) Microsoft Corporation and is licensed under the MIT License');
    expect(notice).toContain('docs/reference-behaviour.md');
    expect(existsSync(join(ROOT, 'docs/reference-behaviour.md'))).toBe(true);
  });

  it('every package is MIT; each published one ships the root LICENSE and NOTICE unchanged', () => {
    const dirs = [...readdirSync(join(ROOT, 'packages')).map((d) => `packages/${d}`), 'examples/simulator'];
    for (const dir of dirs) {
      const manifest = JSON.parse(read(`${dir}/package.json`)) as { name: string; license?: string; files?: string[] };
      expect(manifest.license, manifest.name).toBe('MIT');
      if (!(PUBLISHED as readonly string[]).includes(dir.replace('packages/', ''))) continue;
      expect(manifest.files, manifest.name).toEqual(expect.arrayContaining(['LICENSE', 'NOTICE']));
      expect(read(`${dir}/LICENSE`), `${dir}/LICENSE`).toBe(read('LICENSE'));
      expect(read(`${dir}/NOTICE`), `${dir}/NOTICE`).toBe(read('NOTICE'));
    }
  });
});
