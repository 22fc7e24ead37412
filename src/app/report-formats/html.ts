/**
 * The HTML report: one self-contained file (inline style, no script, no font, no image, a
 * Content-Security-Policy that forbids any fetch) with a verdict banner per session, the score and its
 * dimensions, a timeline of the calls (fault injected, what the upstream did, what the agent was told,
 * the executions of a duplicate marked, retry_after windows drawn), the violations, the patches with
 * their text and the tool classification. The timeline comes from {@link Timeline}, so a journal can
 * later replace the report-derived one without touching this file. A trial run's transcript (both sides
 * of the agent, who sent each repeated write) is drawn by `transcript-view.ts`, within one size budget
 * for the whole page.
 */
import { CHECK_EXIT, type CheckedCase, type CheckResult } from '../check/check-model.js';
import { gateName, percent, type RateGateOutcome } from '../check/rate-gates.js';
import { honestyWords, measuredText, statusLabel } from '../check/check-text.js';
import type { SessionReportDocument } from '../../ports/shapes/report-documents.js';
import { htmlText as h, jsonBreaks } from './escape.js';
import { HTML_STYLE } from './html-style.js';
import { sourceCounts } from './attribution-summary.js';
import { gateTally, gateVerdict, overallOf } from './overall.js';
import { timelineFromReport, type Timeline, type TimelineCall } from './timeline.js';
import { attemptWords, attributionBadge, operationAttempts, shortText } from './attribution-badge.js';
import { TranscriptBudget } from './transcript-budget.js';
import { transcriptSection } from './transcript-view.js';
import { EFFECT_KEYS_LISTED, violationText } from './words.js';
import type { EffectsReport } from '../../domain/effects/effects-report.js';
import { keyText } from '../../domain/effects/effects-verdict.js';
import { groupLabel } from '../../domain/trial/group-label.js';
import type { Proportion } from '../../domain/statistics/index.js';
import { chartLegend, rateChartSvg, type ChartMark, type ChartRow, type MarkTone } from './rate-chart.js';

/** Arguments longer than this are cut in the timeline (the report file has them in full). */
const ARGUMENT_PREVIEW_CHARS = 240;

/** Supplies the timeline of a session; by default derived from its report. */
export type TimelineOf = (c: CheckedCase, doc: SessionReportDocument) => Timeline;

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'";

const seconds = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`);

function preview(text: string): string {
  if (text.length <= ARGUMENT_PREVIEW_CHARS) return h(text);
  return `${h(text.slice(0, ARGUMENT_PREVIEW_CHARS))}<span class="muted">… (${text.length - ARGUMENT_PREVIEW_CHARS} more characters)</span>`;
}

/** A session's or run's own verdict: tinted and marked at its side, never a second page-wide banner. */
function verdictBox(c: CheckedCase): string {
  const extra = c.baseline ? ' <span class="badge outline">baseline only — no fault injected</span>' : '';
  const measured = measuredText(c);
  return `<div class="verdict ${c.status}"><span class="badge ${c.status}">${h(statusLabel(c))}</span>${extra}<div>${h(c.reason)}</div>${measured === '' ? '' : `<div class="measured">${h(measured)}</div>`}</div>`;
}

/**
 * A bar's colour: red under 50, amber under 80, green at 80 and more only when the case PASSed with a
 * fault injected (grey otherwise): a bar is never green under a FAIL, and score 30 is never green.
 */
function barTone(value: number, c: CheckedCase): string {
  if (value < 50) return 'low';
  if (value < 80) return 'mid';
  return c.status === 'PASS' && !c.baseline ? 'good' : 'plain';
}

function bar(c: CheckedCase, label: string, value: number | null, note = ''): string {
  const width = value === null ? 0 : Math.max(0, Math.min(100, value));
  return (
    `<div class="card"><div class="muted small">${h(label)}</div><div class="v">${value === null ? 'n/a' : `${value}`}</div>` +
    `<div class="bar">${value === null ? '' : `<i class="${barTone(value, c)}" style="width:${width}%"></i>`}</div>${note === '' ? '' : `<div class="muted small">${h(note)}</div>`}</div>`
  );
}

/** Honesty as the run file measured it; for a trial run also whether its transaction was lost. */
function honestyCard(c: CheckedCase): string {
  const lost =
    c.lostTransaction === null ? '' : c.lostTransaction ? 'lost transaction: the write never executed' : 'no lost transaction';
  const bad = c.honesty === 'FALSE_SUCCESS' || c.honesty === 'FALSE_FAILURE' || c.honesty === 'EVASIVE';
  // Why the claim could not be read (UNPARSED), under the class.
  const unparsed = c.honestyClaim?.unparsed ?? null;
  return (
    `<div class="card"><div class="muted small">Honesty</div><div class="v t${bad ? ' bad' : ''}">${h(honestyWords(c.honesty))}</div>` +
    `${unparsed === null ? '' : `<div class="muted small">${shortText(unparsed, 160)}</div>`}` +
    `${lost === '' ? '' : `<div class="small${c.lostTransaction === true ? ' bad' : ' muted'}">${h(lost)}</div>`}</div>`
  );
}

function scoreCards(c: CheckedCase, doc: SessionReportDocument): string {
  const { score, report } = doc;
  const d = score.dimensions;
  const calls = report.coverage.calls;
  return (
    '<div class="cards">' +
    bar(
      c,
      'Score (0–100)',
      score.overall,
      score.overall === null ? 'no score with NOT_TESTED' : score.capped ? 'capped at 49 (violation)' : '',
    ) +
    bar(c, `Duplicate safety (${score.weights.duplicateSafety} %)`, d.duplicateSafety) +
    bar(
      c,
      `Failure handling (${score.weights.failureHandling} %)`,
      d.failureHandling,
      d.failureHandling === null ? 'no faulted operation' : '',
    ) +
    honestyCard(c) +
    `<div class="card"><div class="muted small">Calls</div><div class="v">${calls.read + calls.write + calls.unclassified}</div>` +
    `<div class="muted small">${calls.write} write · ${calls.read} read · ${calls.unclassified} unclassified</div></div>` +
    `<div class="card"><div class="muted small">Scenario</div><div class="v">${h(report.scenario.id ?? 'none')}</div>` +
    `<div class="muted small">${h(report.scenario.description)}; ${report.scenario.triggered ? `triggered, ${report.scenario.faultsApplied} fault(s)` : 'never triggered'}</div></div>` +
    '</div>'
  );
}

function windowCell(call: TimelineCall): string {
  const r = call.retryAfter;
  if (r === null) return '';
  if (r.waitedMs === null)
    return `<div class="small">retry_after ${seconds(r.requiredMs)}; not re-sent</div><div class="window ok" title="retry_after window"></div>`;
  const at = Math.max(0, Math.min(100, (100 * r.waitedMs) / Math.max(1, r.requiredMs)));
  const early = r.waitedMs < r.requiredMs;
  return (
    `<div class="small">retry_after ${seconds(r.requiredMs)}; re-sent after ${seconds(r.waitedMs)}${early ? ' — too early' : ''}</div>` +
    `<div class="window${early ? '' : ' ok'}" title="retry_after window"><i style="left:calc(${at.toFixed(1)}% - 1px)"></i></div>`
  );
}

const UPSTREAM_CLASS: Record<TimelineCall['upstream'], string> = {
  executed: 'up-executed',
  rejected: 'up-rejected',
  unknown: 'up-unknown',
  'not sent': 'up-not',
};

/** `--hold`, the agent's cancellation and F6's late landing under what the agent was told. */
function timingNote(call: TimelineCall): string {
  const notes: string[] = [];
  const late = call.landedLate;
  if (late !== null) {
    notes.push(
      late.forwardedAfterMs === null
        ? `landed late: told a time-out after ${seconds(late.toldAfterMs)}; never reached the upstream (the session ended first)`
        : `landed late: told a time-out after ${seconds(late.toldAfterMs)}, reached the upstream after ${seconds(late.forwardedAfterMs)}, answered after ${seconds(late.landedAfterMs)}`,
    );
  }
  if (call.besideLate !== null)
    notes.push(`sent while the late write (call #${call.besideLate}) of this operation was still waiting to land`);
  if (call.execution !== null && (late !== null || call.besideLate !== null))
    notes.push(`execution ${call.execution} of this operation at the upstream, in landing order`);
  if (call.heldMs !== null) notes.push(`held ${seconds(call.heldMs)} after the upstream answered`);
  if (call.cancelledAfterMs !== null) notes.push(`the agent cancelled ${seconds(call.cancelledAfterMs)} after sending it`);
  if (notes.length === 0) return '';
  return `<div class="small note${late !== null || call.besideLate !== null ? ' late' : ''}">${h(notes.join('; '))}</div>`;
}

/** `op 2, attempt 1 (call #3)`: the attempt within its operation, the session's call number where the journal has it. */
function callNumbers(call: TimelineCall): string {
  const number = call.call === null ? '' : `call #${call.call}`;
  if (call.operation === null) return number === '' ? '' : ` <span class="muted small">${number}</span>`;
  return ` <span class="muted small">op ${call.operation + 1}, attempt ${call.attempt}${number === '' ? '' : ` (${number})`}</span>`;
}

function timelineRow(call: TimelineCall, executionsOf: (op: number | null) => number, nth: number): string {
  const cls = call.duplicate ? 'dup' : call.fault !== null ? 'fault' : '';
  const dup = call.duplicate
    ? ` <span class="badge FAIL">duplicate: execution ${call.execution ?? nth} of ${executionsOf(call.operation)}</span>`
    : '';
  const late =
    call.landedLate === null
      ? ''
      : ` <span class="badge NOT_TESTED" title="F6: forwarded after the agent was told it timed out">landed late</span>`;
  const beside =
    call.besideLate === null
      ? ''
      : ` <span class="badge NOT_TESTED" title="F6: sent while the late write of its operation was still waiting to land">beside late #${call.besideLate}</span>`;
  const time = call.atMs === null ? `#${call.seq}` : `${seconds(call.atMs)}`;
  return (
    `<tr class="${cls}"><td class="seq">${time}</td>` +
    `<td class="tool"><b class="mono">${h(call.tool)}</b> <span class="muted small">${call.toolClass}</span>${callNumbers(call)}</td>` +
    `<td class="args mono">${jsonBreaks(preview(call.arguments))}</td>` +
    `<td>${call.fault === null ? '—' : `<span class="badge NOT_TESTED">${h(call.fault)}</span>`}${windowCell(call)}</td>` +
    `<td class="${UPSTREAM_CLASS[call.upstream]}">${h(call.upstream)}${late}${beside}${dup}</td>` +
    `<td class="args told">${preview(call.agentTold)}${timingNote(call)}</td></tr>`
  );
}

/** R-15: a snapshot of the effects view as a timeline row, before the first call or after the last. */
function snapshotRow(when: 'before' | 'after', e: EffectsReport | null): string {
  if (e === null) return '';
  const s = e.snapshots[when];
  const what = s.ok ? `${s.count} record(s)` : `no listing: ${s.reason}`;
  const label = when === 'before' ? 'before the first call' : 'after the last answer';
  return `<tr class="snap"><td class="seq">${when === 'before' ? 'start' : 'end'}</td><td colspan="5"><b>effects view</b> <span class="muted small">${h(viewLabel(e))}</span> listed the backend ${label}: <b>${h(what)}</b></td></tr>`;
}

/** The effects view as its flags name it: the tool, or the command. */
function viewLabel(e: EffectsReport): string {
  return e.view.command !== undefined ? `command ${e.view.command}` : `tool ${e.view.tool ?? '?'}`;
}

const EFFECT_TONE: Record<EffectsReport['verdict'], string> = {
  EXACTLY_ONCE: 'PASS',
  NO_EFFECT: 'PASS',
  DUPLICATE_EFFECT: 'FAIL',
  LOST_EFFECT: 'FAIL',
  EFFECTS_UNKNOWN: 'NOT_TESTED',
};

/**
 * R-15: what the backend held — the effects verdict with its reason, why it differs from the execution
 * verdict, the two snapshots (count, hash, the first records as the report keeps them) and the keys that
 * changed or were expected. The verdict box above keeps the execution verdict.
 */
function effectsSection(e: EffectsReport): string {
  const snap = (label: string, s: EffectsReport['snapshots']['before']) =>
    `<div class="card"><div class="muted small">${h(label)}</div>` +
    (s.ok
      ? `<div class="v">${s.count}</div><div class="muted small mono">hash ${h(s.hash.slice(0, 16))}</div>` +
        (s.head.length === 0
          ? ''
          : `<details><summary>first ${s.head.length} record(s)</summary><pre>${h(s.head.join('\n'))}</pre></details>`)
      : `<div class="v t bad">none</div><div class="small">${h(s.reason)}</div>`) +
    '</div>';
  const keys = e.keys.slice(0, EFFECT_KEYS_LISTED * 10);
  const rows = keys.map(
    (k) =>
      `<tr${k.created >= 2 ? ' class="dup"' : ''}><td class="mono">${h(keyText(k.key))}</td><td data-label="before">${k.before}</td><td data-label="after">${k.after}</td>` +
      `<td data-label="created">${k.created}</td><td data-label="removed">${k.removed}</td><td data-label="changed">${k.changed}</td><td data-label="expected">${k.expected.length > 0 ? 'yes' : 'no'}</td></tr>`,
  );
  const more = e.keys.length - keys.length;
  return (
    `<h3>Effects: what the backend holds</h3><div class="verdict ${EFFECT_TONE[e.verdict]}"><span class="badge ${EFFECT_TONE[e.verdict]}">${h(e.verdict)}</span>` +
    `<div>${h(e.reason)}</div>${e.explanation === null ? '' : `<div class="measured">${h(e.explanation)}</div>`}</div>` +
    `<div class="cards">${snap('Records before (start)', e.snapshots.before)}${snap('Records after (end)', e.snapshots.after)}` +
    `<div class="card"><div class="muted small">View</div><div class="v t mono">${h(viewLabel(e))}</div><div class="muted small">key ${h(e.view.keyFields.join(', '))}</div></div></div>` +
    (rows.length === 0
      ? ''
      : `<div class="scroll"><table class="effects stack"><thead><tr><th>effect key</th><th>before</th><th>after</th><th>created</th><th>removed</th><th>changed</th><th>expected</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`) +
    (more > 0 ? `<p class="muted small">… and ${more} more key(s) in the report file.</p>` : '')
  );
}

function timelineSection(doc: SessionReportDocument, timeline: Timeline, effects: EffectsReport | null): string {
  const ops = doc.report.operations;
  const executionsOf = (op: number | null) => (op === null ? 0 : (ops[op]?.executions ?? 0));
  const note = timeline.exact
    ? ''
    : '<p class="muted small">From the report file: one row per write attempt, grouped by operation in the order the operations first appeared. ' +
      'Call times, read calls and the order of attempts within one operation are not in the report (a journal records them).</p>';
  const unlisted = timeline.unlisted.read + timeline.unlisted.unclassified;
  const more =
    unlisted === 0
      ? ''
      : `<p class="muted small">Not listed: ${timeline.unlisted.read} read call(s), ${timeline.unlisted.unclassified} unclassified call(s).</p>`;
  const omitted =
    timeline.omitted === 0
      ? ''
      : `<p class="muted small">The first ${timeline.calls.length} rows are drawn; ${timeline.omitted} more row(s) are not drawn (the ${timeline.exact ? 'journal' : 'report file'} has them all).</p>`;
  const executed = new Map<number | null, number>();
  const rows = timeline.calls
    .map((c) => {
      const nth = c.upstream === 'executed' ? (executed.get(c.operation) ?? 0) + 1 : 0;
      if (nth > 0) executed.set(c.operation, nth);
      return timelineRow(c, executionsOf, nth);
    })
    .join('\n');
  const withSnapshots = [snapshotRow('before', effects), rows, snapshotRow('after', effects)].filter((r) => r !== '').join('\n');
  return `<h3>Timeline: ${timeline.calls.length + timeline.omitted} ${timeline.exact ? 'call(s)' : 'write attempt(s)'}</h3>${note}${more}${omitted}<div class="scroll"><table class="tl"><colgroup><col style="width:4.5em"><col style="width:17%"><col style="width:24%"><col style="width:17%"><col style="width:13%"><col></colgroup><thead><tr><th>${timeline.exact ? 'time' : '#'}</th><th>tool</th><th>arguments</th><th>fault injected</th><th>upstream</th><th>agent was told</th></tr></thead><tbody>\n${withSnapshots}\n</tbody></table></div>`;
}

/** Violations listed before the fold; the rest are one click away. */
const VIOLATIONS_SHOWN = 10;

function violationsSection(c: CheckedCase): string {
  if (c.violations.length === 0) return '';
  const item = (v: CheckedCase['violations'][number]) =>
    `<li>${v.sources.map((s) => `<span class="badge src-${s}">source: ${s}</span> `).join('')}${h(violationText(v))}</li>`;
  const first = c.violations.slice(0, VIOLATIONS_SHOWN).map(item).join('');
  const rest = c.violations.slice(VIOLATIONS_SHOWN);
  const more =
    rest.length === 0
      ? ''
      : `<details><summary>${rest.length} more violation(s)</summary><ul>${rest.map(item).join('')}</ul></details>`;
  return `<h3>Violations (${c.violations.length})</h3><ul>${first}</ul>${more}`;
}

function observationsSection(doc: SessionReportDocument): string {
  const list = doc.report.observations;
  if (list.length === 0) return '';
  const item = (o: SessionReportDocument['report']['observations'][number]) =>
    `<li><b>${h(o.type)}</b> <span class="mono">${h(o.tool)}</span>${o.count > 1 ? ` ×${o.count}` : ''}` +
    `${o.arguments === undefined ? '' : ` <span class="mono small">${preview(o.arguments)}</span>`}${o.waitedMs === undefined ? '' : ` (waited ${seconds(o.waitedMs)})`}</li>`;
  return (
    `<details><summary>Observations (${list.length})</summary><ul>${list.slice(0, 200).map(item).join('')}</ul>` +
    `${list.length > 200 ? `<p class="muted small">… and ${list.length - 200} more in the report file.</p>` : ''}</details>`
  );
}

function patchesSection(doc: SessionReportDocument): string {
  if (doc.patches.length === 0) return '';
  const items = doc.patches.map(
    (p) =>
      `<details open><summary>[${h(p.severity)}] ${h(p.id)}</summary><p>${h(p.trigger)}</p><pre>${h(p.text)}</pre></details>`,
  );
  return `<h3>Prompt patches</h3><p class="muted small">Suggestions, not verified fixes: add one to the agent's system prompt and re-run the scenario several times.</p>${items.join('')}`;
}

/** R-14.4: what the runtime re-sent, beside the patches: no prompt text answers it. */
function findingsSection(c: CheckedCase): string {
  if (c.findings.length === 0) return '';
  const items = c.findings.map(
    (f) =>
      `<details open><summary>[${h(f.severity)}] ${h(f.id)} (${h(f.behaviour)})</summary><p>${h(f.trigger)}</p><p>${h(f.text)}</p></details>`,
  );
  return `<h3>Findings: the runtime sent a write again</h3><p class="muted small">A prompt change will not fix these.</p>${items.join('')}`;
}

function toolsSection(doc: SessionReportDocument): string {
  const rows = doc.toolClassification.map(
    (t) =>
      `<tr><td class="mono">${h(t.name)}</td><td>${h(t.class)}</td><td>${h(t.reason)}</td><td class="mono">${h(t.keyFields.join(', '))}</td></tr>`,
  );
  const unclassified = doc.report.coverage.unclassifiedTools;
  const warn =
    unclassified.length === 0
      ? ''
      : `<p>Unclassified (forwarded, not judged): <span class="mono">${h(unclassified.join(', '))}</span></p>`;
  return `<details><summary>Tool classification (${doc.toolClassification.length})</summary>${warn}<div class="scroll"><table><thead><tr><th>tool</th><th>class</th><th>why</th><th>key fields</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></details>`;
}

/**
 * Who sent each repeated write (R-14), for a case whose file says so but has no transcript to show it in
 * (a report that carries its own attribution).
 */
function attributionSection(c: CheckedCase): string {
  if (c.attribution.length === 0 || c.transcript.length > 0) return '';
  const shown = c.attribution.slice(0, VIOLATIONS_SHOWN * 10);
  const attempts = operationAttempts(c.attribution);
  const items = shown.map(
    (a) =>
      `<li><span class="mono">${shortText(a.tool, 200)}</span> op ${a.operation}, ${attemptWords(a.session, a.attempt, attempts)}, MCP session ${a.session}${attributionBadge(a, null, attempts)}</li>`,
  );
  const more = c.attribution.length - shown.length;
  return `<h3>Who sent the repeated writes (${c.attribution.length})</h3><ul class="attrs">${items.join('')}</ul>${more > 0 ? `<p class="muted small">… and ${more} more in the file.</p>` : ''}`;
}

/** Calls a report counts (reads, writes, unclassified); null when the case has no report. */
function callCount(c: CheckedCase): number | null {
  const calls = c.document?.report.coverage.calls;
  return calls === undefined ? null : calls.read + calls.write + calls.unclassified;
}

/**
 * A session or run with no call at all (a `--listen` connection that never called a tool) and nothing
 * else to show: one line — its verdict, its name, why — instead of cards of `n/a` and an empty timeline.
 */
function quietCase(c: CheckedCase): boolean {
  return (
    callCount(c) === 0 && c.transcript.length === 0 && c.violations.length === 0 && c.findings.length === 0 && c.effects === null
  );
}

function quietLine(c: CheckedCase, prefix: string): string {
  return (
    `<section class="case quiet" id="${prefix}"><p><span class="badge ${c.status}">${h(statusLabel(c))}</span> ` +
    `<b class="mono">${h(c.title)}</b> — ${h(c.reason)} <span class="muted small">(no call; harness ${h(c.document!.harnessVersion)})</span></p></section>`
  );
}

function caseSection(c: CheckedCase, index: number, timelineOf: TimelineOf, budget: TranscriptBudget): string {
  const prefix = `case-${index + 1}`;
  if (quietCase(c)) return quietLine(c, prefix);
  const head = `<section class="case" id="${prefix}"><h2>${h(c.title)}</h2>${verdictBox(c)}`;
  const doc = c.document;
  const transcript = transcriptSection(
    c.transcript,
    { prefix, attribution: c.attribution, document: doc, honesty: c.honestyClaim },
    budget,
  );
  if (doc === null) return `${head}${transcript}</section>`;
  return (
    `${head}${scoreCards(c, doc)}${c.effects === null ? '' : effectsSection(c.effects)}${violationsSection(c)}${attributionSection(c)}${timelineSection(doc, timelineOf(c, doc), c.effects)}${transcript}${patchesSection(doc)}${findingsSection(c)}${observationsSection(doc)}${toolsSection(doc)}` +
    `<p class="muted small">harness ${h(doc.harnessVersion)} · report status ${h(doc.status)} · UNVERIFIED_FOR_PRODUCTION</p></section>`
  );
}

/** A path that wraps after its separators first (a `<wbr>` after each `/`), mid-name only when a name is wider than the line. */
const pathBreaks = (escaped: string): string => escaped.replace(/[/\\]/g, '$&<wbr>');

/**
 * The index: one row per session or run — its result, a link to its section, the score, honesty and why
 * (the reason of a NOT_TESTED, a FAIL's violation). On a phone each row is a card (`table.stack`), so a
 * long file name wraps on the card's width instead of in a narrow column.
 */
function summaryTable(cases: readonly CheckedCase[]): string {
  const cell = (label: string, content: string, cls = '') =>
    `<td data-label="${label}"${cls === '' ? '' : ` class="${cls}"`}>${content}</td>`;
  const rows = cases.map(
    (c, i) =>
      '<tr>' +
      cell('result', `<span class="badge ${c.status}">${h(statusLabel(c))}</span>`) +
      cell('session / run', `<a href="#case-${i + 1}">${pathBreaks(h(c.title))}</a>`, 'name') +
      cell('score', c.score === null ? '—' : `${c.score}/100`) +
      cell('honesty', h(measuredText(c) || '—')) +
      cell(
        'why',
        `${h(c.reason)}${callCount(c) === 0 && !/no calls?\b/i.test(c.reason) ? ' <span class="muted small">(no call)</span>' : ''}`,
        'why',
      ) +
      '</tr>',
  );
  return `<table class="index stack"><thead><tr><th>result</th><th>session / run</th><th>score</th><th>honesty</th><th>why</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Failed gates named in the overall banner; the table below has every gate. */
const GATES_IN_BANNER = 5;

/** The one page-wide banner: the overall result, why (the counts, the failed gates) and the exit code. */
function overallBanner(result: CheckResult): string {
  const { counts } = result;
  const overall = overallOf(result);
  const summary = `${counts.total} session(s)/run(s): ${counts.pass} PASS${counts.baseline > 0 ? ` (${counts.baseline} baseline only)` : ''}, ${counts.fail} FAIL, ${counts.notTested} NOT_TESTED, ${counts.error} harness error(s) · exit code ${result.exitCode}`;
  const failed = result.gates.filter((gate) => !gate.passed);
  const lines = failed.slice(0, GATES_IN_BANNER).map((gate) => `<li>${h(gate.message)}</li>`);
  if (failed.length > GATES_IN_BANNER)
    lines.push(`<li>… and ${failed.length - GATES_IN_BANNER} more failed gate(s) (below)</li>`);
  // With rate gates the gates decide: single FAIL runs then count only when --fail-on names them.
  const note =
    result.gates.length > 0 && failed.length === 0 && counts.fail > 0 && result.exitCode === CHECK_EXIT.pass
      ? '<div>Every rate gate passed; the single FAIL runs do not fail the check (add --fail-on FAIL to make them).</div>'
      : '';
  return (
    `<div class="banner ${overall.status}" id="overall"><b>${h(overall.label)}</b><div>${h(summary)}</div>` +
    `${lines.length === 0 ? '' : `<ul class="why">${lines.join('')}</ul>`}${note}</div>`
  );
}

/** The rate gates (`--min-pass-rate`, …): one row per gate and group, as the Markdown summary has them. */
function gatesSection(result: CheckResult): string {
  if (result.gates.length === 0) return '';
  const cell = (label: string, content: string, cls = '') =>
    `<td data-label="${label}"${cls === '' ? '' : ` class="${cls}"`}>${content}</td>`;
  const interval = (gate: RateGateOutcome) =>
    gate.rate.low === null || gate.rate.high === null
      ? ''
      : ` <span class="muted small">95 % interval ${percent(gate.rate.low)}–${percent(gate.rate.high)}</span>`;
  const rows = result.gates.map(
    (gate) =>
      `<tr class="${gate.passed ? 'gate-ok' : 'gate-failed'}">` +
      cell('result', `<span class="badge ${gate.passed ? 'PASS' : 'FAIL'}">${gate.passed ? 'passed' : 'FAILED'}</span>`) +
      cell('gate', h(gateName(gate)), 'mono') +
      cell('group', h(gate.group)) +
      cell(
        'measured',
        `${gate.rate.count}/${gate.rate.of}${gate.rate.rate === null ? '' : ` = ${percent(gate.rate.rate)}`}${interval(gate)}`,
      ) +
      cell('verdict', h(gateVerdict(gate))) +
      '</tr>',
  );
  return (
    `<h2 id="rate-gates">Rate gates (${gateTally(result)})</h2>` +
    '<table class="gates stack"><thead><tr><th>result</th><th>gate</th><th>group</th><th>measured</th><th>verdict</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

const share = (rate: Proportion): string => (rate.rate === null ? '—' : `${percent(rate.rate)} (${rate.count}/${rate.of})`);

function rateMark(series: string, rate: Proportion, tone: MarkTone): ChartMark[] {
  return rate.rate === null ? [] : [{ series, estimate: rate.rate, low: rate.low!, high: rate.high!, tone }];
}

/**
 * The trial's picture: per arm and scenario the PASS rate and the duplicate rate over the judged runs,
 * each with its 95 % Wilson interval, as `stats` pools the folders named. None without a trial folder.
 */
function trialRatesSection(result: CheckResult): string {
  if (result.trial === null || result.trial.scenarios.length === 0) return '';
  const rows: ChartRow[] = result.trial.scenarios.map((group) => ({
    label: groupLabel(group.arm, group.scenario),
    caption: `PASS ${share(group.rates.pass)} · dup ${share(group.rates.duplicateExecution)}`,
    marks: [
      ...rateMark('PASS rate', group.rates.pass, 'second'),
      ...rateMark('duplicate rate', group.rates.duplicateExecution, 'third'),
    ],
  }));
  const title = 'PASS and duplicate rates per scenario (judged runs, 95 % Wilson interval)';
  return (
    '<h2 id="trial-rates">Rates per scenario</h2>' +
    `<figure class="chart"><figcaption>${h(title)}</figcaption>${rateChartSvg({ title, scale: 'rate', rows, slots: 2 })}` +
    chartLegend([
      { tone: 'second', text: 'PASS rate' },
      { tone: 'third', text: 'duplicate rate' },
    ]) +
    '</figure>'
  );
}

/** The whole HTML document. */
export function buildHtml(result: CheckResult, timelineOf: TimelineOf = (_c, doc) => timelineFromReport(doc)): string {
  const cases = result.suites.flatMap((s) => s.cases);
  const title = `cuonztech-agent-harness check: ${overallOf(result).label}`;
  const bySource = sourceCounts(cases);
  // One budget for every run's transcript: a page of many long conversations stays a few megabytes.
  const budget = new TranscriptBudget();
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">` +
    `<title>${h(title)}</title><style>${HTML_STYLE}</style></head><body><main>` +
    '<h1>cuonztech-agent-harness check</h1>' +
    overallBanner(result) +
    gatesSection(result) +
    trialRatesSection(result) +
    (bySource === null ? '' : `<p><b>Repeated writes by source:</b> ${h(bySource)}</p>`) +
    (cases.length > 1 ? summaryTable(cases) : '') +
    cases.map((c, i) => caseSection(c, i, timelineOf, budget)).join('\n') +
    '<p class="muted small">Self-test results (UNVERIFIED_FOR_PRODUCTION), not a certification.</p>' +
    '</main></body></html>\n'
  );
}
