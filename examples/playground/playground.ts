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
import { FakeKernel } from '@ipsets/fake-kernel';
import { convergenceProblems } from '@ipsets/fake-kernel/invariants';

/** The `ipsets` command's owner prefix for a file that names none (the page plans as `ipsets plan` does). */
const DEFAULT_CLI_OWNER = 'ipsets-';
import { LineCounter, parseDocument } from 'yaml';

// ---------------------------------------------------------------- desired file

/** A problem with the pasted desired state, with where it is (`line 4:15, sets[0].members[0]: …`, as the CLI says it). */
class InputError extends Error {}

/** The pasted text, parsed, with a way to say where a value is. */
interface ParsedInput {
  readonly value: unknown;
  /** `line L:C, PATH: ` for the value at `path` (its parent's position when it is missing). */
  where(path: readonly (string | number)[]): string;
}

function pathText(path: readonly (string | number)[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out === '' ? key : `.${key}`;
  return out === '' ? '(root)' : out;
}

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Parses YAML or JSON (YAML reads JSON too) with positions, so every problem can say its line and column. */
function readDocument(text: string): ParsedInput {
  if (text.trim() === '') throw new InputError('the desired state is empty; expected a mapping with a "sets" list');
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const first = doc.errors[0];
  if (first !== undefined) {
    const at = lines.linePos(first.pos[0]);
    throw new InputError(`line ${at.line}:${at.col}: not valid YAML or JSON: ${first.message.split('\n')[0]}`);
  }
  const where = (path: readonly (string | number)[]): string => {
    // The value's node, else the closest parent that exists.
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range !== undefined) {
        const at = lines.linePos(range[0]);
        return `line ${at.line}:${at.col}, ${pathText(path)}: `;
      }
    }
    return `${pathText(path)}: `;
  };
  return { value: doc.toJS({ maxAliasCount: 100 }), where };
}

function setMeta(value: unknown, path: (string | number)[], input: ParsedInput): SetMetadata {
  if (value === null || typeof value !== 'object') throw new InputError(`${input.where(path)}expected { type, name }, got ${describe(value)}`);
  const { type, name } = value as { type?: unknown; name?: unknown };
  if (typeof type !== 'string' || !isSetType(type)) {
    throw new InputError(`${input.where([...path, 'type'])}unknown set type ${describe(type)}; expected namespace, keyLabelOfPod, keyValueLabelOfPod, namedPorts, cidrBlocks, …`);
  }
  if (typeof name !== 'string' || name === '') throw new InputError(`${input.where([...path, 'name'])}expected a non-empty string, got ${describe(name)}`);
  return { type, name };
}

/** The desired file's sets, through the manager's public API (so the page accepts what the library accepts). */
function desiredStateOf(text: string): DesiredState {
  const input = readDocument(text);
  const doc = input.value as { owner?: unknown; scheme?: unknown; sets?: unknown } | null;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new InputError(`${input.where([])}expected a mapping with a "sets" list, got ${describe(doc)}`);
  if (!Array.isArray(doc.sets)) throw new InputError(`${input.where(['sets'])}expected a list of sets, got ${describe(doc.sets)}`);
  if (doc.owner !== undefined && typeof doc.owner !== 'string') throw new InputError(`${input.where(['owner'])}expected a string such as "ipsets-", got ${describe(doc.owner)}`);
  if (doc.scheme !== undefined && doc.scheme !== 'sha256-base36' && doc.scheme !== 'fnv32') {
    throw new InputError(`${input.where(['scheme'])}expected "sha256-base36" or "fnv32", got ${describe(doc.scheme)}`);
  }
  const manager = new IPSetManager({
    mode: 'all',
    // The command's own prefix, as `ipsets plan` uses for a file that names none.
    owner: doc.owner === undefined ? DEFAULT_CLI_OWNER : (doc.owner as string),
    ...(doc.scheme === undefined ? {} : { scheme: doc.scheme as NamingScheme }),
  });
  const refused = (path: (string | number)[], error: unknown): never => {
    if (isIpsetsError(error)) throw new InputError(`${input.where(path)}${error.message}`);
    throw error;
  };
  doc.sets.forEach((raw: unknown, i: number) => {
    const path = ['sets', i];
    const meta = setMeta(raw, path, input);
    const members = (raw as { members?: unknown }).members ?? [];
    if (!Array.isArray(members)) throw new InputError(`${input.where([...path, 'members'])}expected a list, got ${describe(members)}`);
    try {
      manager.createIPSets([meta]);
    } catch (error) {
      refused(path, error);
    }
    if (setTypeInfo(meta.type).kind === 'list') {
      const sets = members.map((m, j) => setMeta(m, [...path, 'members', j], input));
      try {
        if (sets.length > 0) manager.addToLists([meta], sets);
      } catch (error) {
        refused([...path, 'members'], error);
      }
    } else {
      members.forEach((m, j) => {
        if (typeof m !== 'string') throw new InputError(`${input.where([...path, 'members', j])}expected a string, got ${describe(m)}`);
        try {
          manager.addToSets([meta], m, 'playground');
        } catch (error) {
          refused([...path, 'members', j], error);
        }
      });
    }
  });
  return manager.desiredState();
}

// ---------------------------------------------------------------- faults

type FaultKind = 'none' | 'userspace' | 'kernel' | 'busy' | 'crash';

function faultMessage(line: string, side: 'userspace' | 'kernel'): string {
  const [op, set = '', member = ''] = line.split(' ');
  // The planted message names what is on the failing line, as ipset's own would.
  if (side === 'userspace') {
    return op === '-A' || op === '-D' ? `Syntax error: cannot parse ${member.split(',')[0]}: resolving to IPv4 address failed` : `Syntax error: Unknown argument: '${set}'`;
  }
  if (op === '-A') return 'Hash is full, cannot add more elements';
  if (op === '-N') return 'Set cannot be created: set with the same name already exists';
  if (op === '-X') return 'Set cannot be destroyed: it is in use by a kernel component';
  return 'Kernel error received: Cannot allocate memory';
}

// ---------------------------------------------------------------- page

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

const SAMPLE_DESIRED = `# A small node: a namespace, pod labels, a nested list, a named port and a CIDR block.
# Kernel names are the owner prefix (ipsets- unless the file says owner:) and a digest.
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

const SAMPLE_SAVE = `create ipsets-3456789012 hash:net family inet hashsize 1024 maxelem 65536
add ipsets-3456789012 10.244.9.9
create my-firewall hash:ip family inet hashsize 1024 maxelem 65536
add my-firewall 192.0.2.1
`;

interface State {
  /** 1 for the apply of the pasted kernel, 2, 3, … for each next apply. */
  apply: number;
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

/** Empties every pane that shows a plan, an apply or a kernel: nothing stale stays beside a new error. */
function clearPanes(): void {
  $('plan-lines').replaceChildren();
  $('plan-notes').replaceChildren();
  $('plan-summary').textContent = 'Press Plan.';
  $('attempts').replaceChildren();
  $('report').replaceChildren();
  $('kernel-before').textContent = '';
  $('kernel-after').textContent = '';
  setNextApply(false);
}

function plan(): void {
  showError(undefined);
  state = undefined;
  clearPanes();
  try {
    const desired = desiredStateOf(($('desired') as HTMLTextAreaElement).value);
    const kernel = new FakeKernel();
    const saveText = ($('save') as HTMLTextAreaElement).value;
    if (saveText.trim() !== '') {
      const loaded = kernel.restore(saveText.endsWith('\n') ? saveText : `${saveText}\n`);
      if (loaded.exitCode !== 0) throw new InputError(`the ipset save text does not load into the fake kernel: ${loaded.stderr.trim()}`);
    }
    startApply(1, desired, kernel, false);
  } catch (error) {
    setStepping(false);
    showError(error instanceof Error ? error.message : String(error));
  }
}

/** Plans against what `kernel` holds now and gets the session ready; `faultFree` skips the fault (a next apply). */
function startApply(apply: number, desired: DesiredState, kernel: FakeKernel, faultFree: boolean): void {
  const snapshot = parseSave(kernel.save().stdout);
  const headers = parseListHeaders(kernel.listHeaders().stdout);
  const restorePlan = planReconcile(desired, snapshot, headers);
  renderPlan(restorePlan, desired);
  state = { apply, plan: restorePlan, desired, kernel, session: createRestoreSession(restorePlan), attempts: 0, faultArmed: faultFree };
  setStepping(restorePlan.lines.length > 0);
  $('kernel-before').textContent = kernel.saveText() || '(empty)';
  $('kernel-after').textContent = '';
}

/**
 * The next apply, as the agent's next reconcile would run it: a fresh plan from what the
 * kernel holds after the last one (no fault this time), run to the end, so the retry of
 * what failed can be watched converging.
 */
function nextApply(): void {
  const s = state;
  if (s === undefined) return;
  showError(undefined);
  s.kernel.clearFaults();
  $('attempts').append(el('li', { className: 'next-apply', text: `apply ${s.apply + 1}: the next apply plans again from the kernel as it is now` }));
  startApply(s.apply + 1, s.desired, s.kernel, true);
  setNextApply(false);
  if (state!.plan.lines.length === 0) finish(state!);
  else runToEnd();
}

function setNextApply(enabled: boolean): void {
  ($('next-button') as HTMLButtonElement).disabled = !enabled;
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
    el('div', { className: 'attempt-head', text: `${s.apply > 1 ? `apply ${s.apply}, ` : ''}attempt ${attempt.number}: ${attempt.indices.length} lines (plan lines ${rangeText(attempt.indices)})` }),
  );
  // Numbered per apply: the next apply's attempts count from 1 again.
  item.value = attempt.number;
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
    el('h3', {
      className: report.converged ? 'verdict ok' : 'verdict failed',
      text: `${s.apply > 1 ? `Apply ${s.apply}: ` : ''}${report.converged ? 'Converged' : 'Not converged'}`,
    }),
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
  // What did not converge stays for the next apply: it can be run from here.
  if (!report.converged || allProblems.length > 0) {
    box.append(el('p', { className: 'hint', text: 'Next apply plans again from this kernel, as the agent\'s next reconcile does, and retries what failed.' }));
    setNextApply(true);
  }
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
  $('next-button').addEventListener('click', nextApply);
  $('fault-kind').addEventListener('change', () => {
    const kind = ($('fault-kind') as HTMLSelectElement).value;
    ($('fault-line') as HTMLInputElement).disabled = kind === 'none' || kind === 'busy';
  });
  setStepping(false);
  setNextApply(false);
  document.body.dataset.ready = 'true';
}

init();
