/**
 * Rendering a 1,000,000-line plan: the library's `renderRestore` against the
 * alternatives it was chosen over (array + join, chunked joins). The time includes
 * turning the string into bytes, as a port does when it writes stdin.
 *
 *   node --expose-gc --import tsx bench/render.ts
 */
import { renderLine, renderRestore } from '../src/session/render.js';
import type { PlanLine, RestorePlan } from '../src/types.js';

const N = Number(process.env.BENCH_LINES) || 1_000_000;
const lines: PlanLine[] = [];
const SETS = 100;
for (let s = 0; s < SETS; s++) {
  const set = `azure-npm-${(1e19 + s * 7919).toString(36).slice(0, 20)}`;
  lines.push({ op: 'create', set, spec: 'nethash', section: `add/update-${s}`, onError: [] });
  for (let i = 0; i < N / SETS; i++) {
    const v = s * (N / SETS) + i;
    const member = `10.${(v >> 16) & 255}.${(v >> 8) & 255}.${v & 255}`;
    lines.push({ op: i % 50 === 0 ? 'del' : 'add', set, member, section: `add/update-${s}`, onError: [] });
  }
}
const plan: RestorePlan = { lines };

function viaJoin(p: RestorePlan): string {
  const out = new Array<string>(p.lines.length + 1);
  for (let i = 0; i < p.lines.length; i++) out[i] = renderLine(p.lines[i]!);
  out[p.lines.length] = '';
  return out.join('\n');
}
function viaRope(p: RestorePlan): string {
  let text = '';
  for (let i = 0; i < p.lines.length; i++) text += renderLine(p.lines[i]!) + '\n';
  return text;
}

const gc = (globalThis as { gc?: () => void }).gc;
function measure(name: string, render: (p: RestorePlan) => string): void {
  const times: number[] = [];
  let bytes = 0;
  for (let r = 0; r < 7; r++) {
    gc?.();
    const t0 = performance.now();
    const text = render(plan);
    bytes = Buffer.byteLength(text);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(16)} median ${times[3]!.toFixed(0)} ms  min ${times[0]!.toFixed(0)} ms  (${lines.length} lines, ${(bytes / 1e6).toFixed(1)} MB)`);
}

const reference = renderRestore(plan);
if (viaJoin(plan) !== reference || viaRope(plan) !== reference) throw new Error('renderers disagree');
measure('renderRestore', (p) => renderRestore(p));
measure('one big join', viaJoin);
measure('rope (+=)', viaRope);
const indices = Array.from({ length: lines.length }, (_, i) => i);
measure('with indices', (p) => renderRestore(p, indices));
