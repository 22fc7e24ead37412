/**
 * The HTML report's layout, measured in a real browser (Debian's chromium, headless; no browser is
 * downloaded): at 1280 px and at 390 px wide no element of a timeline cell reaches into the next cell
 * (the duplicate badge over "agent was told"), the page does not scroll sideways, and every column of the
 * summary table — the score too — is on screen. A copy of the report with its CSP removed gets a script
 * that writes the measurements into the DOM, which `--dump-dom` prints. Skipped, saying so, where
 * chromium is absent.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readSource } from '../../../src/adapters/files/report-files/report-sources.js';
import { checkGroups } from '../../../src/app/check/check.js';
import { buildHtml } from '../../../src/app/report-formats/html.js';
import { documentOf, documentWithEffects, F, naiveF1, carefulF1, tempFiles } from '../../support/report-docs.js';
import { Driver } from '../../support/session-driver.js';
import { checkRunFiles, runFile, transcriptOf } from '../../support/trial-run-fixtures.js';
import { gatedTrial } from '../../support/check-results.js';
import { withTrialSummary } from '../../../src/app/check/check-model.js';
import { formatCompareHtml } from '../../../src/app/compare/compare-html.js';
import { summariseRuns } from '../../../src/domain/trial/index.js';
import { compareOf, DUPLICATED, side } from '../../support/compare-results.js';
import { times } from '../../support/run-facts.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const NOTE = CHROMIUM === undefined ? ' (skipped: no chromium at /usr/bin/chromium; apt-get install chromium)' : '';

// A browser start on a loaded machine: seconds (no duration is asserted).
vi.setConfig({ testTimeout: 120_000 });

const scratch = mkdtempSync(join(tmpdir(), 'harness-html-layout-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes what overflows into `<pre id="layout">` as JSON. */
const MEASURE = `<script>
(() => {
  const problems = [];
  for (const d of document.querySelectorAll('details.conv')) d.open = true;
  const name = (el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).replace(/ /g, '.') : '');
  // The effects section (R-15): from its heading to the next, its records' details opened.
  const effectsSection = [];
  const effectsHeading = [...document.querySelectorAll('h3')].find((el) => el.textContent.startsWith('Effects'));
  for (let el = effectsHeading ? effectsHeading.nextElementSibling : null; el && !/^H[1-3]$/.test(el.tagName); el = el.nextElementSibling) {
    for (const d of el.querySelectorAll('details')) d.open = true;
    effectsSection.push(el, ...el.querySelectorAll('*'));
  }
  const vw = document.documentElement.clientWidth;
  let effectsMeasured = 0;
  for (const el of effectsSection) {
    const r = el.getBoundingClientRect();
    if (r.width === 0) continue;
    effectsMeasured++;
    if (r.right > vw + 1) problems.push('effects ' + name(el) + ' "' + el.textContent.slice(0, 40) + '" reaches past the page (' + Math.round(r.right) + ' > ' + vw + ')');
  }
  if (document.documentElement.scrollWidth > vw + 1) problems.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + vw);
  for (const td of document.querySelectorAll('table.tl td')) {
    const cell = td.getBoundingClientRect();
    for (const el of td.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.right > cell.right + 1 || r.left < cell.left - 1)
        problems.push(name(el) + ' "' + el.textContent.slice(0, 40) + '" leaves its timeline cell (' + Math.round(r.left) + '–' + Math.round(r.right) + ' vs ' + Math.round(cell.left) + '–' + Math.round(cell.right) + ')');
    }
  }
  for (const el of document.querySelectorAll('ol.tx *')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > vw + 1) problems.push('transcript ' + name(el) + ' "' + el.textContent.slice(0, 40) + '" reaches past the page (' + Math.round(r.right) + ' > ' + vw + ')');
  }
  for (const box of document.querySelectorAll('.scroll')) {
    if (box.scrollWidth > box.clientWidth + 1) problems.push('a table is wider than its box: ' + box.scrollWidth + ' > ' + box.clientWidth + ' (' + box.querySelector('th')?.textContent + ')');
  }
  for (const th of document.querySelectorAll('th')) {
    const r = th.getBoundingClientRect();
    if (r.width > 0 && r.right > vw + 1) problems.push('column "' + th.textContent + '" is off-screen (' + Math.round(r.right) + ' > ' + vw + ')');
  }
  const charts = [];
  for (const svg of document.querySelectorAll('svg.rate-chart')) {
    const box = svg.getBoundingClientRect();
    charts.push({ width: Math.round(box.width), height: Math.round(box.height) });
    if (box.right > vw + 1) problems.push('a chart reaches past the page (' + Math.round(box.right) + ' > ' + vw + ')');
    for (const el of svg.querySelectorAll('text, circle, line')) {
      const r = el.getBoundingClientRect();
      if (r.right > box.right + 1 || r.left < box.left - 1)
        problems.push('chart ' + el.tagName + ' "' + el.textContent.slice(0, 40) + '" leaves its chart (' + Math.round(r.left) + '–' + Math.round(r.right) + ' vs ' + Math.round(box.left) + '–' + Math.round(box.right) + ')');
    }
    const rows = [...svg.querySelectorAll('g.row > text')].map((t) => t.getBoundingClientRect());
    for (let i = 1; i < rows.length; i++) if (rows[i].top < rows[i - 1].bottom - 1) problems.push('chart rows overlap: row ' + (i + 1));
  }
  // Where the timeline's arguments wrap: the characters either side of each line break.
  const breaks = [];
  const range = document.createRange();
  for (const td of document.querySelectorAll('table.tl td.args.mono')) {
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    let top = null;
    let previous = '';
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const r = range.getClientRects()[0];
        if (!r) continue;
        if (top !== null && r.top > top + 2) breaks.push(previous + '|' + node.data[i]);
        top = r.top;
        previous = node.data[i];
      }
    }
  }
  // The index's links: how wide each one's cell is.
  const indexCells = [...document.querySelectorAll('table.index td.name')].map((td) => Math.round(td.getBoundingClientRect().width));
  // The compare table's cells: as wide as the page on a phone (a card per row), none off-screen.
  const compareCells = [...document.querySelectorAll('table.compare td')].map((td) => Math.round(td.getBoundingClientRect().width));
  const out = document.createElement('pre');
  out.id = 'layout';
  out.textContent = JSON.stringify({ width: vw, problems, charts, breaks, indexCells, compareCells, effectsMeasured });
  document.body.appendChild(out);
})();
</script>`;

/** Headless, offline (this machine's network is closed), with a new empty profile each time. */
function chromiumFlags(): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${mkdtempSync(join(scratch, 'profile-'))}`,
  ];
}

/**
 * What overflows at a window `width` px wide, and the viewport width the page got: headless chromium's
 * `--dump-dom` window is never narrower than about 500 px (the screenshots are exact), so "390 px" is
 * measured at that narrowest width, which is under the report's 640 px phone layout all the same.
 */
interface Layout {
  width: number;
  problems: string[];
  /** Each rate chart's size on the page, px. */
  charts: Array<{ width: number; height: number }>;
  /** Each line break inside the timeline's arguments: `previous|next` character. */
  breaks: string[];
  /** The width of each link cell of the index, px. */
  indexCells: number[];
  /** The width of each cell of compare's table, px. */
  compareCells: number[];
  /** How many elements of the effects section were measured (0: the page has none). */
  effectsMeasured: number;
}

async function layoutProblems(html: string, width: number, label: string): Promise<Layout> {
  const page = join(scratch, `${label}-${width}.html`);
  writeFileSync(
    page,
    html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '').replace('</body>', `${MEASURE}</body>`),
  );
  const r = await execa(CHROMIUM!, [...chromiumFlags(), `--window-size=${width},900`, '--dump-dom', `file://${page}`], {
    reject: false,
    timeout: 90_000,
  });
  const match = /<pre id="layout">(.*?)<\/pre>/s.exec(String(r.stdout));
  if (match === null) throw new Error(`chromium printed no measurement (exit ${r.exitCode}): ${String(r.stderr).slice(0, 300)}`);
  const text = match[1]!
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  return JSON.parse(text) as Layout;
}

/** A report folder of two sessions with long file names: the summary table, a duplicate's badges. */
async function reportHtml(): Promise<string> {
  const long = 'session_0001_20261130T190512Z_a_rather_long_agent_session_identifier_from_the_ci_run';
  const files = tempFiles({ [`dir/${long}-a.json`]: documentOf(naiveF1()), [`dir/${long}-b.json`]: documentOf(carefulF1()) });
  try {
    const result = checkGroups([await readSource(files.path('dir'))], {
      failOn: new Set(['FAIL', 'NOT_TESTED']),
      minScore: null,
    });
    return buildHtml(result);
  } finally {
    files.remove();
  }
}

describe('the HTML report in a real browser', () => {
  it.skipIf(CHROMIUM === undefined)(
    `at 1280 and 390 px wide nothing leaves its timeline cell, nothing is off-screen${NOTE}`,
    async () => {
      const html = await reportHtml();
      expect(html).toContain('duplicate: execution 2 of 2');
      const wide = await layoutProblems(html, 1280, 'report');
      expect(wide.problems, '1280 px').toEqual([]);
      expect(wide.width).toBeGreaterThan(1100);
      const narrow = await layoutProblems(html, 390, 'report');
      expect(narrow.problems, `${narrow.width} px`).toEqual([]);
      expect(narrow.width).toBeLessThan(640);
    },
  );
});

/**
 * Two trial runs of agent programs with their transcripts (a runtime duplicate; the model's and the
 * user's), the first with long unbroken model text, tool-call ids and arguments, as a model can write them.
 */
function transcriptHtml(): string {
  const long = runFile('runtime-duplicate');
  const entries = transcriptOf(long);
  const answer = entries.find((e) => e.kind === 'model-answer')!;
  const word = 'Supercalifragilistic'.repeat(40);
  answer['content'] = `${word} ${word}`;
  answer['toolCalls'] = [
    { id: `call_${'z'.repeat(300)}`, name: `create_booking_${'y'.repeat(120)}`, arguments: JSON.stringify({ note: word }) },
  ];
  const call = entries.find((e) => e.kind === 'mcp-call')!;
  call['tool'] = `create_booking_${'y'.repeat(120)}`;
  call['arguments'] = { note: word };
  return buildHtml(checkRunFiles([long, runFile('model-and-user-duplicates')]));
}

describe('the HTML report of trial runs with transcripts in a real browser', () => {
  it.skipIf(CHROMIUM === undefined)(
    `at 1280 and 390 px wide nothing of the transcript reaches past the page, whose width stays the window's${NOTE}`,
    async () => {
      const html = transcriptHtml();
      expect(html).toContain('<ol class="tx">');
      expect(html).toContain('source: runtime');
      const wide = await layoutProblems(html, 1280, 'transcript');
      expect(wide.problems, '1280 px').toEqual([]);
      const narrow = await layoutProblems(html, 390, 'transcript');
      expect(narrow.problems, `${narrow.width} px`).toEqual([]);
      expect(narrow.width).toBeLessThan(640);
    },
  );
});

/**
 * A report whose effects view (R-15) listed long records: two bookings for one guest with a long unbroken
 * name and a long note (the first records the report keeps, each cut to 200 characters), and an expected
 * effect that never happened, with a long key too.
 */
async function effectsHtml(): Promise<string> {
  const guest = `Annabelle_${'x'.repeat(150)}`;
  const row = (id: number) => ({ id, guest, date: '2026-01-01', note: 'n'.repeat(300) });
  const doc = documentWithEffects(naiveF1(), { before: [], after: [row(1), row(2)] }, [
    `guest=${'Q'.repeat(140)},date=2026-02-02`,
  ]);
  const files = tempFiles({ 'effects.json': doc });
  try {
    const result = checkGroups([await readSource(files.path('effects.json'))], {
      failOn: new Set(['FAIL', 'NOT_TESTED']),
      minScore: null,
    });
    return buildHtml(result);
  } finally {
    files.remove();
  }
}

describe('the effects section of the HTML report in a real browser (R-15)', () => {
  it.skipIf(CHROMIUM === undefined)(
    `at 1280 and 390 px wide the effects verdict, both snapshots with their first records opened, the keys and the timeline's snapshot rows stay on the page${NOTE}`,
    async () => {
      const html = await effectsHtml();
      expect(html).toContain('<h3>Effects: what the backend holds</h3>');
      expect(html).toContain('<tr class="snap">');
      expect(html).toContain('DUPLICATE_EFFECT');
      const wide = await layoutProblems(html, 1280, 'effects');
      expect(wide.problems, '1280 px').toEqual([]);
      expect(wide.effectsMeasured).toBeGreaterThan(20);
      const narrow = await layoutProblems(html, 390, 'effects');
      expect(narrow.problems, `${narrow.width} px`).toEqual([]);
      expect(narrow.width).toBeLessThan(640);
      expect(narrow.effectsMeasured).toBeGreaterThan(20);
    },
  );
});

/** A trial that misses `--min-pass-rate 90 %` (and meets a duplicate gate): the overall banner and the gate table. */
function gatedHtml(): string {
  return buildHtml(
    gatedTrial(
      [
        { flag: 'min-pass-rate', threshold: 0.9 },
        { flag: 'max-duplicate-rate', threshold: 0.05 },
      ],
      new Set(['FAIL']),
    ),
  );
}

describe('the overall banner and the rate gates in a real browser', () => {
  it.skipIf(CHROMIUM === undefined)(
    `at 1280 and 390 px wide the gate table fits (one card per gate when narrow), nothing is off-screen${NOTE}`,
    async () => {
      const html = gatedHtml();
      expect(html).toContain('<table class="gates stack">');
      const wide = await layoutProblems(html, 1280, 'gates');
      expect(wide.problems, '1280 px').toEqual([]);
      const narrow = await layoutProblems(html, 390, 'gates');
      expect(narrow.problems, `${narrow.width} px`).toEqual([]);
      expect(narrow.width).toBeLessThan(640);
    },
  );
});

/**
 * `compare --html` of two trials of three scenarios and a patched arm with a long name, settings that
 * differ with long values: the forest plot's two charts, the table.
 */
function compareHtml(): string {
  const arm = 'patched-with-a-rather-long-arm-name-from-ci';
  const facts = (dup: number) =>
    ['F1', 'F2', 'F5'].flatMap((scenario) => [
      ...times(dup, { ...DUPLICATED, scenario }),
      ...times(10 - dup, { scenario }),
      ...times(3, { scenario, arm }),
    ]);
  const settings = (model: string) => ({ '--model': model, '--system-prompt-file': `prompts/${model}-${'x'.repeat(60)}.txt` });
  return formatCompareHtml(
    compareOf(side(facts(9), 'trials/naive', settings('naive')), side(facts(1), 'trials/careful', settings('careful'))),
  );
}

/** `check --html` over a trial of four scenarios (one of a patched arm): the rates per scenario. */
function trialRatesHtml(): string {
  const summary = summariseRuns([
    ...times(3, DUPLICATED),
    ...times(17, {}),
    ...times(2, { scenario: 'F2' }),
    ...times(5, { scenario: 'F3', ...DUPLICATED }),
    ...times(4, { scenario: 'F1', arm: 'patched-with-a-rather-long-arm-name-from-ci' }),
  ]);
  return buildHtml(withTrialSummary(gatedTrial([{ flag: 'min-pass-rate', threshold: 0.9 }], new Set(['FAIL'])), summary));
}

describe('the pictures (rate charts) in a real browser', () => {
  for (const [name, page, charts] of [
    ['compare', compareHtml, 2],
    ['trial-rates', trialRatesHtml, 1],
  ] as const) {
    it.skipIf(CHROMIUM === undefined)(
      `${name}: at 1280 and 390 px wide every chart fits the page, its text and whiskers stay inside it, rows never overlap${NOTE}`,
      async () => {
        const html = page();
        const wide = await layoutProblems(html, 1280, name);
        expect(wide.problems, '1280 px').toEqual([]);
        expect(wide.charts).toHaveLength(charts);
        for (const chart of wide.charts) expect(chart.width).toBeGreaterThan(400);
        const narrow = await layoutProblems(html, 390, name);
        expect(narrow.problems, `${narrow.width} px`).toEqual([]);
        expect(narrow.width).toBeLessThan(640);
        // Stacked on a phone: each chart takes the page's width, not a sliver of it.
        for (const chart of narrow.charts) expect(chart.width).toBeGreaterThan(narrow.width - 40);
        // compare's table: a card per row on a phone, every column on screen with its name.
        if (name === 'compare') {
          expect(narrow.compareCells.length).toBeGreaterThan(6);
          for (const cell of narrow.compareCells) expect(cell).toBeGreaterThan(narrow.width * 0.8);
          expect(html).toContain('<td data-label="B − A (95 % CI)">');
        }
      },
    );
  }
});

/**
 * A folder of three sessions, one without a call, whose writes carry arguments of several members: the
 * index (a card per session on a phone), the quiet line, where the arguments wrap.
 */
async function indexHtml(): Promise<string> {
  const d = new Driver(F('F1'));
  const args = { customer: 'Alexandra Smith', date: '2026-01-01', note: 'window seat, please', party: 4, room: 'Lakeside' };
  d.call('create_booking', args);
  d.call('create_booking', args);
  const long = 'session_0001_20261130T190512Z_a_rather_long_agent_session_identifier_from_the_ci_run';
  const files = tempFiles({
    [`dir/${long}-a.json`]: documentOf(d),
    [`dir/${long}-b.json`]: documentOf(carefulF1()),
    [`dir/${long}-c.json`]: documentOf(new Driver(F('F1'))),
  });
  try {
    return buildHtml(
      checkGroups([await readSource(files.path('dir'))], { failOn: new Set(['FAIL', 'NOT_TESTED']), minScore: null }),
    );
  } finally {
    files.remove();
  }
}

describe('the index and the timeline a person reads, in a real browser', () => {
  it.skipIf(CHROMIUM === undefined)(
    `at 390 px the index is one card per session (its link as wide as the card), arguments wrap only after a comma or a space, nothing is off-screen${NOTE}`,
    async () => {
      const html = await indexHtml();
      expect(html).toContain('<section class="case quiet"');
      const wide = await layoutProblems(html, 1280, 'index');
      expect(wide.problems, '1280 px').toEqual([]);
      const narrow = await layoutProblems(html, 390, 'index');
      expect(narrow.problems, `${narrow.width} px`).toEqual([]);
      expect(narrow.indexCells).toHaveLength(3);
      for (const cell of narrow.indexCells) expect(cell).toBeGreaterThan(narrow.width * 0.8);
      for (const layout of [wide, narrow]) {
        for (const at of layout.breaks) expect([',', ' '], `a break ${at} at ${layout.width} px`).toContain(at[0]);
      }
      expect(narrow.breaks.length + wide.breaks.length).toBeGreaterThan(0);
    },
  );
});

/** For a person to look at: `HTML_SCREENSHOTS=<folder> npx vitest run test/integration/report-formats/browser.test.ts`. */
describe.skipIf(CHROMIUM === undefined || process.env['HTML_SCREENSHOTS'] === undefined)('screenshots', () => {
  it('writes report-, gates-, compare- and trial-rates-1280.png and -390.png', async () => {
    const folder = process.env['HTML_SCREENSHOTS']!;
    for (const [name, html] of [
      ['report', await reportHtml()],
      ['gates', gatedHtml()],
      ['compare', compareHtml()],
      ['trial-rates', trialRatesHtml()],
      ['index', await indexHtml()],
    ] as const) {
      const page = join(folder, `${name}.html`);
      writeFileSync(page, html);
      for (const width of [1280, 390]) {
        await execa(CHROMIUM!, [
          ...chromiumFlags(),
          '--hide-scrollbars',
          `--window-size=${width},1400`,
          `--screenshot=${join(folder, `${name}-${width}.png`)}`,
          `file://${page}`,
        ]);
        expect(readFileSync(join(folder, `${name}-${width}.png`)).length).toBeGreaterThan(0);
      }
    }
  });
});
