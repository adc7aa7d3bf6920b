/**
 * The API report: the built type declarations (`dist/*.d.ts`) of every published
 * package, kept in `packages/release-checks/api/<package>.api.md` (Markdown, as api-extractor's
 * reports are, so no tool reads them as code), so that a change to a
 * public type shows in review as a diff of that file. Run after `npm run build`; a
 * deliberate change updates the reports with
 * `cd packages/release-checks && npx vitest run test/api-report.test.ts -u`.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PUBLISHED, ROOT } from './helpers/repo.js';

/** A chunk's content hash in its file name (`fake-kernel-BRPmjW5u.d.ts`) changes with any edit: named by its stem instead. */
const CHUNK_HASH = /-[A-Za-z0-9_-]{8}(\.d\.ts)/g;

/** Every `.d.ts` of a package's dist, in name order, each under a heading with its (hash-free) name. */
function apiReport(dir: string): string {
  const dist = join(ROOT, 'packages', dir, 'dist');
  const files = existsSync(dist) ? readdirSync(dist).filter((f) => f.endsWith('.d.ts')) : [];
  if (files.length === 0) throw new Error(`packages/${dir}/dist has no .d.ts files: run \`npm run build\` (without IPSETS_SKIP_DTS) first`);
  return files
    .map((f) => ({ name: f.replace(CHUNK_HASH, '$1'), text: readFileSync(join(dist, f), 'utf8').replace(CHUNK_HASH, '$1') }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, text }) => `## dist/${name}\n\n\`\`\`ts\n${text.trimEnd()}\n\`\`\`\n`)
    .reduce((report, part) => `${report}\n${part}`, `# @ipsets/${dir}: API report\n\nThe built type declarations, compared with \`dist/\` by \`test/api-report.test.ts\`. Do not edit: after a deliberate change, \`npm run build\`, then \`npx vitest run test/api-report.test.ts -u\` in packages/release-checks.\n`);
}

describe('the API report (built .d.ts of each published package)', () => {
  for (const dir of PUBLISHED) {
    it(`@ipsets/${dir} declares exactly what api/${dir}.api.md holds`, async () => {
      await expect(apiReport(dir)).toMatchFileSnapshot(`../api/${dir}.api.md`);
    });
  }
});
