/**
 * The playground: paste a desired state (JSON or YAML) and optionally an `ipset save`,
 * see the reconcile plan with its sections and error handlers, then step through the
 * apply on an in-page fake kernel, attempt by attempt, with a fault of your choice.
 * Everything runs in the page: @ipsets/core plans, the fake kernel from
 * @ipsets/fake-kernel plays ipset 7.17; nothing is sent anywhere.
 */
import {
  IPSetManager,
  createRestoreSession,
  isIpsetsError,
  isSetType,
  parseListHeaders,
  parseSave,
  planReconcile,
  renderRestore,
  setTypeInfo,
} from '@ipsets/core';
import type { ApplyReport, DesiredState, NamingScheme, RestorePlan, RestoreSession, SetMetadata } from '@ipsets/core';
import { FakeKernel, convergenceProblems } from '@ipsets/fake-kernel';
import { parse as parseYaml } from 'yaml';

// ---------------------------------------------------------------- desired file

/** A problem with the pasted desired state, with where it is. */
class InputError extends Error {}

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function readDocument(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') throw new InputError('the desired state is empty; expected a mapping with a "sets" list');
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed);
    } catch (error) {
      throw new InputError(`not valid JSON: ${(error as Error).message}`);
    }
  }
  try {
    return parseYaml(trimmed, { maxAliasCount: 100 });
  } catch (error) {
    throw new InputError(`not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
}

function setMeta(value: unknown, path: string): SetMetadata {
  if (value === null || typeof value !== 'object') throw new InputError(`${path}: expected { type, name }, got ${describe(value)}`);
  const { type, name } = value as { type?: unknown; name?: unknown };
  if (typeof type !== 'string' || !isSetType(type)) {
    throw new InputError(`${path}.type: unknown set type ${describe(type)}; expected namespace, keyLabelOfPod, keyValueLabelOfPod, namedPorts, cidrBlocks, …`);
  }
  if (typeof name !== 'string' || name === '') throw new InputError(`${path}.name: expected a non-empty string, got ${describe(name)}`);
  return { type, name };
}

/** The desired file's sets, through the manager's public API (so the page accepts what the library accepts). */
function desiredStateOf(text: string): DesiredState {
  const doc = readDocument(text) as { owner?: unknown; scheme?: unknown; sets?: unknown } | null;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new InputError(`expected a mapping with a "sets" list, got ${describe(doc)}`);
  if (!Array.isArray(doc.sets)) throw new InputError(`sets: expected a list of sets, got ${describe(doc.sets)}`);
  if (doc.owner !== undefined && typeof doc.owner !== 'string') throw new InputError(`owner: expected a string such as "azure-npm-", got ${describe(doc.owner)}`);
  if (doc.scheme !== undefined && doc.scheme !== 'sha256-base36' && doc.scheme !== 'fnv32') {
    throw new InputError(`scheme: expected "sha256-base36" or "fnv32", got ${describe(doc.scheme)}`);
  }
  const manager = new IPSetManager({
    mode: 'all',
    ...(doc.owner === undefined ? {} : { owner: doc.owner as string }),
    ...(doc.scheme === undefined ? {} : { scheme: doc.scheme as NamingScheme }),
  });
  doc.sets.forEach((raw: unknown, i: number) => {
    const path = `sets[${i}]`;
    const meta = setMeta(raw, path);
    const members = (raw as { members?: unknown }).members ?? [];
    if (!Array.isArray(members)) throw new InputError(`${path}.members: expected a list, got ${describe(members)}`);
    try {
      manager.createIPSets([meta]);
      if (setTypeInfo(meta.type).kind === 'list') {
        const sets = members.map((m, j) => setMeta(m, `${path}.members[${j}]`));
        if (sets.length > 0) manager.addToLists([meta], sets);
      } else {
        members.forEach((m, j) => {
          if (typeof m !== 'string') throw new InputError(`${path}.members[${j}]: expected a string, got ${describe(m)}`);
          manager.addToSets([meta], m, 'playground');
        });
      }
    } catch (error) {
      if (isIpsetsError(error)) throw new InputError(`${path}: ${error.message}`);
      throw error;
    }
  });
  return manager.desiredState();
}

// ---------------------------------------------------------------- faults

type FaultKind = 'none' | 'userspace' | 'kernel' | 'busy' | 'crash';

function faultMessage(line: string, side: 'userspace' | 'kernel'): string {
  const [op, set = '', member = ''] = line.split(' ');
  if (side === 'userspace') {
    return op === '-A' || op === '-D'
      ? `Syntax error: cannot parse ${member.split(',')[0]}9: resolving to IPv4 address failed`
      : `Syntax error: setname '${set}x' is longer than 31 characters`;
  }
  if (op === '-A') return 'Hash is full, cannot add more elements';
  if (op === '-N') return 'Set cannot be created: set with the same name already exists';
  if (op === '-X') return 'Set cannot be destroyed: it is in use by a kernel component';
  return 'Kernel error received: Cannot allocate memory';
}

// ---------------------------------------------------------------- page

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

const SAMPLE_DESIRED = `# A small node: a namespace, pod labels, a nested list, a named port and a CIDR block.
owner: azure-npm-
sets:
  - type: namespace
    name: shop
    members: [10.244.1.10, 10.244.1.11, 10.244.1.12]
  - type: keyValueLabelOfPod
    name: app:frontend
    members: [10.244.1.10, 10.244.1.11]
  - type: keyValueLabelOfPod
    name: app:cart
    members: [10.244.1.12]
  - type: nestedLabelOfPod
    name: app:frontend:cart
    members:
      - { type: keyValueLabelOfPod, name: app:frontend }
      - { type: keyValueLabelOfPod, name: app:cart }
  - type: namedPorts
    name: http
    members: ["10.244.1.10,tcp:8080", "10.244.1.11,tcp:8080"]
  - type: cidrBlocks
    name: allow-egress-in-ns-shop-0out
    members: ["10.0.0.0/8", "10.96.0.0/12 nomatch"]
`;

const SAMPLE_SAVE = `create azure-npm-3456789012 hash:net family inet hashsize 1024 maxelem 65536
add azure-npm-3456789012 10.244.9.9
create my-firewall hash:ip family inet hashsize 1024 maxelem 65536
add my-firewall 192.0.2.1
`;

interface State {
  plan: RestorePlan;
  desired: DesiredState;
  kernel: FakeKernel;
  session: RestoreSession;
  attempts: number;
  faultArmed: boolean;
}

let state: State | undefined;

function showError(message: string | undefined): void {
  const box = $('error');
  box.textContent = message ?? '';
  box.hidden = message === undefined;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: { className?: string; text?: string } = {}, ...children: Node[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className !== undefined) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  node.append(...children);
  return node;
}

function sectionColor(section: string): string {
  let h = 0;
  for (let i = 0; i < section.length; i++) h = (h * 31 + section.charCodeAt(i)) >>> 0;
  return `hsl(${h % 360} 55% 92%)`;
}

function renderPlan(plan: RestorePlan, desired: DesiredState): void {
  const labels = new Map(desired.sets.map((s) => [s.name, s.label ?? s.name]));
  const body = $('plan-lines');
  body.replaceChildren();
  const text = renderRestore(plan).split('\n');
  plan.lines.forEach((line, i) => {
    const row = el('tr');
    row.dataset.index = String(i);
    row.style.setProperty('--section', sectionColor(line.section));
    row.append(
      el('td', { className: 'num', text: String(i + 1) }),
      el('td', { className: 'code' }, el('div', { text: text[i] ?? '' }), el('div', { className: 'label', text: labels.get(line.set) ?? '' })),
      el(
        'td',
        {},
        el('span', { className: 'section', text: line.section }),
        el(
          'div',
          { className: 'handlers' },
          ...line.onError.map((h) => {
            const chip = el('span', { className: `handler ${h.report}`, text: `${h.when} → ${h.then}` });
            chip.title = `reported as ${h.report}`;
            return chip;
          }),
        ),
      ),
    );
    body.append(row);
  });
  $('plan-summary').textContent =
    plan.lines.length === 0
      ? 'Nothing to do: the kernel already holds the desired state.'
      : `${plan.lines.length} lines in ${new Set(plan.lines.map((l) => l.section)).size} sections`;
  const notes = $('plan-notes');
  notes.replaceChildren(...(plan.notes ?? []).map((n) => el('li', { text: `${n.kind}: ${n.message}` })));
}

function markRows(indices: readonly number[], className: string): void {
  const wanted = new Set(indices);
  for (const row of $('plan-lines').querySelectorAll('tr')) {
    if (wanted.has(Number(row.dataset.index))) row.classList.add(className);
  }
}

function plan(): void {
  showError(undefined);
  state = undefined;
  $('attempts').replaceChildren();
  $('report').replaceChildren();
  try {
    const desired = desiredStateOf(($('desired') as HTMLTextAreaElement).value);
    const kernel = new FakeKernel();
    const saveText = ($('save') as HTMLTextAreaElement).value;
    if (saveText.trim() !== '') {
      const loaded = kernel.restore(saveText.endsWith('\n') ? saveText : `${saveText}\n`);
      if (loaded.exitCode !== 0) throw new InputError(`the ipset save text does not load into the fake kernel: ${loaded.stderr.trim()}`);
    }
    const snapshot = parseSave(kernel.save().stdout);
    const headers = parseListHeaders(kernel.listHeaders().stdout);
    const restorePlan = planReconcile(desired, snapshot, headers);
    renderPlan(restorePlan, desired);
    state = { plan: restorePlan, desired, kernel, session: createRestoreSession(restorePlan), attempts: 0, faultArmed: false };
    setStepping(restorePlan.lines.length > 0);
    $('kernel-before').textContent = kernel.saveText() || '(empty)';
  } catch (error) {
    setStepping(false);
    showError(error instanceof Error ? error.message : String(error));
  }
}

function setStepping(enabled: boolean): void {
  ($('step-button') as HTMLButtonElement).disabled = !enabled;
  ($('run-button') as HTMLButtonElement).disabled = !enabled;
}

function armFault(s: State, text: string): string | undefined {
  const kind = ($('fault-kind') as HTMLSelectElement).value as FaultKind;
  const n = Number(($('fault-line') as HTMLInputElement).value);
  const lines = text.split('\n').filter((l) => l !== '');
  if (kind === 'none') return undefined;
  if (kind === 'busy') {
    s.kernel.busy(1);
    return 'busy: the next batch is refused with "Device or resource busy"';
  }
  if (!Number.isInteger(n) || n < (kind === 'crash' ? 0 : 1) || n > lines.length) {
    throw new InputError(`fault line ${describe(($('fault-line') as HTMLInputElement).value)}: expected a whole number from ${kind === 'crash' ? 0 : 1} to ${lines.length}`);
  }
  if (kind === 'crash') {
    s.kernel.crashAfter(n);
    return `crash: ipset is killed after ${n} lines`;
  }
  const message = faultMessage(lines[n - 1]!, kind);
  s.kernel.failLine(n, { message, side: kind });
  return `${kind} error at line ${n}: ${message}`;
}

function step(): boolean {
  const s = state;
  if (s === undefined) return false;
  const attempt = s.session.next();
  if (attempt === undefined) return false;
  showError(undefined);
  let planted: string | undefined;
  if (!s.faultArmed) {
    try {
      planted = armFault(s, attempt.text);
    } catch (error) {
      showError((error as Error).message);
      return false;
    }
    s.faultArmed = true;
  }
  const result = s.kernel.restore(attempt.text, { exist: true });
  s.session.record(result);
  s.attempts++;
  const record = s.session.report().attempts[s.attempts - 1];
  const classified = record?.error;
  const item = el(
    'li',
    { className: result.exitCode === 0 ? 'ok' : 'failed' },
    el('div', { className: 'attempt-head', text: `attempt ${attempt.number}: ${attempt.indices.length} lines (plan lines ${rangeText(attempt.indices)})` }),
  );
  if (planted !== undefined) item.append(el('div', { className: 'planted', text: `planted: ${planted}` }));
  item.append(
    el(
      'div',
      { className: 'result' },
      el('span', { text: `exit ${result.exitCode}${result.signal === undefined ? '' : ` (${result.signal})`}` }),
      el('span', { text: classified === undefined ? '' : ` · ${classified.kind}, caught in ${classified.side}${classified.line === undefined ? '' : ` at line ${classified.line}`}` }),
      el('span', { className: 'action', text: ` · next: ${record?.action ?? '?'}` }),
    ),
  );
  if (result.stderr.trim() !== '') item.append(el('pre', { className: 'stderr', text: result.stderr.trim() }));
  $('attempts').append(item);
  markRows(attempt.indices, 'sent');
  if (s.session.next() === undefined) finish(s);
  return true;
}

function rangeText(indices: readonly number[]): string {
  if (indices.length === 0) return 'none';
  const first = indices[0]! + 1;
  const last = indices[indices.length - 1]! + 1;
  return indices.length === last - first + 1 ? `${first}–${last}` : `${first}–${last}, ${indices.length} of them`;
}

function finish(s: State): void {
  setStepping(false);
  const report: ApplyReport = s.session.report();
  const problems = convergenceProblems(s.kernel, s.desired, { report });
  const allProblems = convergenceProblems(s.kernel, s.desired);
  markRows(
    report.skipped.map((k) => k.index),
    'skipped',
  );
  const firstSkipped = $('plan-lines').querySelector('tr.skipped');
  if (firstSkipped !== null) {
    const wrap = $('plan-wrap');
    wrap.scrollTop = Math.max(0, (firstSkipped as HTMLElement).offsetTop - wrap.clientHeight / 2);
  }
  const box = $('report');
  box.replaceChildren(
    el('h3', { className: report.converged ? 'verdict ok' : 'verdict failed', text: report.converged ? 'Converged' : 'Not converged' }),
    el(
      'p',
      { text: `${report.attempts.length} attempts, ${report.linesApplied} of ${report.linesTotal} lines applied, ${report.skipped.length} skipped.` },
    ),
  );
  if (report.skipped.length > 0) {
    box.append(
      el('h4', { text: 'Skipped lines' }),
      el('ul', {}, ...report.skipped.map((k) => el('li', { className: 'skipped-line', text: `line ${k.index + 1} ${k.text} — ${k.reason}, ${k.kind}: ${k.message} (${k.outcome})` }))),
    );
  }
  if (report.failedSets.length > 0) box.append(el('p', { text: `Sets not in their desired state (they stay dirty for the next apply): ${report.failedSets.join(', ')}` }));
  if (report.fatal !== undefined) box.append(el('p', { className: 'fatal', text: `Ended early: ${report.fatal.code}: ${report.fatal.message}` }));
  box.append(
    el(
      'p',
      { className: 'check' },
      el('strong', { text: 'Check against the kernel: ' }),
      document.createTextNode(
        allProblems.length === 0
          ? 'every owned set equals the desired state.'
          : `${allProblems.length === 1 ? '1 set differs' : `${allProblems.length} sets differ`} (${problems.length === 0 ? 'all of them reported by the apply' : `${problems.length} NOT reported`}): ${allProblems.map((p) => `${p.set} ${p.problem}`).join('; ')}`,
      ),
    ),
  );
  $('kernel-after').textContent = s.kernel.saveText() || '(empty)';
}

function runToEnd(): void {
  for (let i = 0; i < 100 && step(); i++);
}

function init(): void {
  ($('desired') as HTMLTextAreaElement).value = SAMPLE_DESIRED;
  ($('save') as HTMLTextAreaElement).value = SAMPLE_SAVE;
  $('plan-button').addEventListener('click', plan);
  $('step-button').addEventListener('click', () => void step());
  $('run-button').addEventListener('click', runToEnd);
  $('fault-kind').addEventListener('change', () => {
    const kind = ($('fault-kind') as HTMLSelectElement).value;
    ($('fault-line') as HTMLInputElement).disabled = kind === 'none' || kind === 'busy';
  });
  setStepping(false);
  document.body.dataset.ready = 'true';
}

init();
