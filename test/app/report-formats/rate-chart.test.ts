/**
 * The pictures of the HTML pages (issue 42 §5): the rate chart's SVG is well-formed XML (a real parser),
 * every dot sits at its estimate between the ends of its whisker and inside the plot, labels are escaped
 * and cut to a phone's line; `compare --html` draws the forest plot (A, B, B − A) and `check --html` over a
 * trial the PASS and duplicate rates per scenario, with the intervals of src/domain/statistics.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { withTrialSummary } from '../../../src/app/check/check-model.js';
import { formatCompareHtml } from '../../../src/app/compare/compare-html.js';
import { buildHtml } from '../../../src/app/report-formats/html.js';
import { LINE_CHARS, rateChartSvg, rowLine, xPercent, type RateChart } from '../../../src/app/report-formats/rate-chart.js';
import { proportion } from '../../../src/domain/statistics/index.js';
import { summariseRuns } from '../../../src/domain/trial/index.js';
import { gatedTrial } from '../../support/check-results.js';
import { compareOf, DUPLICATED, naiveAgainstCareful, side } from '../../support/compare-results.js';
import { times } from '../../support/run-facts.js';

type Node = Record<string, unknown>;
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (_name, _path, _leaf, attribute) => attribute !== true,
});

/** Every element named `name` anywhere under `node`, with its attributes. */
function all(node: unknown, name: string, out: Node[] = []): Node[] {
  if (Array.isArray(node)) for (const item of node) all(item, name, out);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === name && Array.isArray(value)) for (const item of value as Node[]) out.push(item);
      all(value, name, out);
    }
  }
  return out;
}

const num = (value: unknown): number => Number(String(value).replace('%', ''));

/** Each mark of a chart: its dot's x and its whisker's ends, in % of the width. */
function marks(svg: string): Array<{ series: string; cx: number; x1: number; x2: number }> {
  const doc = parser.parse(svg) as Node;
  return all(doc, 'g')
    .filter((g) => g['class'] === 'mark')
    .map((g) => {
      const circle = (g['circle'] as Node[])[0]!;
      const whisker = (g['line'] as Node[]).find((l) => l['class'] === 'whisker')!;
      return { series: String(g['data-series']), cx: num(circle['cx']), x1: num(whisker['x1']), x2: num(whisker['x2']) };
    });
}

const svgsOf = (html: string): string[] => [...html.matchAll(/<svg class="rate-chart"[\s\S]*?<\/svg>/g)].map((m) => m[0]);

describe('rateChartSvg', () => {
  const chart: RateChart = {
    title: 'rates <b>&</b> "quotes"',
    scale: 'rate',
    rows: [
      {
        label: 'F1 <script>alert(1)</script>',
        caption: 'A & B',
        marks: [
          { series: 'A"><x', estimate: 0.4, low: 0.17, high: 0.69, tone: 'first' },
          { series: 'B', estimate: 1, low: 0.72, high: 1, tone: 'second' },
        ],
      },
      { label: 'F2\u0000\u202e', caption: '0 %', marks: [{ series: 'A', estimate: 0, low: 0, high: 0.28, tone: 'first' }] },
    ],
  };

  it('is well-formed XML with every label escaped (no element from a label, no forbidden character)', () => {
    const svg = rateChartSvg(chart);
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('<b>');
    expect(svg).toContain('F1 &lt;script&gt;');
    expect(svg).not.toContain('\u0000');
    expect(svg).not.toContain('\u202e');
    const doc = parser.parse(svg) as Node;
    expect(all(doc, 'script')).toEqual([]);
    expect(all(doc, 'x')).toEqual([]);
  });

  it('draws each dot at its estimate, between the ends of its whisker, inside the plot (2–98 % of the width)', () => {
    const drawn = marks(rateChartSvg(chart));
    expect(drawn.map((m) => m.series)).toEqual(['A"><x', 'B', 'A']);
    const expected = chart.rows.flatMap((row) => row.marks);
    drawn.forEach((m, i) => {
      const mark = expected[i]!;
      expect(m.cx).toBeCloseTo(xPercent(mark.estimate, 'rate'), 2);
      expect(m.x1).toBeCloseTo(xPercent(mark.low, 'rate'), 2);
      expect(m.x2).toBeCloseTo(xPercent(mark.high, 'rate'), 2);
      expect(m.x1).toBeLessThanOrEqual(m.cx);
      expect(m.cx).toBeLessThanOrEqual(m.x2);
      for (const x of [m.x1, m.cx, m.x2]) {
        expect(x).toBeGreaterThanOrEqual(2);
        expect(x).toBeLessThanOrEqual(98);
      }
    });
    expect(xPercent(0.4, 'rate')).toBeCloseTo(2 + 96 * 0.4, 2);
  });

  it('a difference axis runs from −100 to +100 pp with zero in the middle; a value off the axis stays at its end', () => {
    const svg = rateChartSvg({
      title: 'd',
      scale: 'difference',
      rows: [
        { label: 'x', caption: '', marks: [{ series: 'B − A', estimate: -0.6, low: -1.4, high: Number.NaN, tone: 'better' }] },
      ],
    });
    expect(XMLValidator.validate(svg)).toBe(true);
    const zero = all(parser.parse(svg), 'line').filter((l) => l['class'] === 'zero');
    expect(zero.map((l) => l['x1'])).toEqual(['50%']);
    const [m] = marks(svg);
    expect(m!.cx).toBeCloseTo(50 - 48 * 0.6, 2);
    expect(m!.x1).toBe(2);
    expect(m!.x2).toBeGreaterThanOrEqual(m!.cx);
    expect(svg).toContain('−100 pp');
    expect(svg).toContain('+100 pp');
  });

  it('cuts a long line to a phone’s width (the figures kept before the name), the tooltip keeps it whole', () => {
    const row = { label: `F1 (arm ${'p'.repeat(80)})`, caption: 'A 40 % · B 90 %', marks: [] };
    const shown = rowLine(row);
    expect(shown.cut).toBe(true);
    expect([...`${shown.label} ${shown.caption}`].length).toBeLessThanOrEqual(LINE_CHARS);
    expect(shown.caption).toBe('A 40 % · B 90 %');
    expect(shown.label.endsWith('…')).toBe(true);
    const svg = rateChartSvg({ title: 't', scale: 'rate', rows: [row] });
    expect(svg).toContain(`<title>${row.label} ${row.caption}</title>`);
    expect(rowLine({ label: 'F1 · PASS', caption: 'A 40 %', marks: [] })).toEqual({
      label: 'F1 · PASS',
      caption: 'A 40 %',
      cut: false,
    });
    // The rate after the group's name stays: `F1 (arm patc… · duplicates`.
    const rated = rowLine({ label: `F1 (arm ${'p'.repeat(80)}) · duplicates`, caption: 'A 90 % · B 10 %', marks: [] });
    expect(rated.label).toMatch(/^F1 \(arm p+… · duplicates$/);
    expect([...`${rated.label} ${rated.caption}`].length).toBeLessThanOrEqual(LINE_CHARS);
  });
});

describe('compare --html: the forest plot', () => {
  it('draws the rates of A and B with their Wilson intervals and B − A with its Newcombe interval, better in green', () => {
    const result = naiveAgainstCareful();
    const html = formatCompareHtml(result);
    expect(html).toContain('<h2 id="forest-plot">Forest plot</h2>');
    const [rates, differences] = svgsOf(html);
    expect(rates).toBeDefined();
    expect(differences).toBeDefined();
    for (const svg of [rates!, differences!]) expect(XMLValidator.validate(svg)).toBe(true);
    // The first rows: PASS (A 0/10, B 10/10), then duplicates (A 10/10, B 0/10).
    const [passA, passB, dupA, dupB] = marks(rates!);
    const none = proportion(0, 10);
    const every = proportion(10, 10);
    expect(passA).toMatchObject({
      series: 'A',
      cx: xPercent(0, 'rate'),
      x1: xPercent(0, 'rate'),
      x2: xPercent(none.high!, 'rate'),
    });
    expect(passB).toMatchObject({ series: 'B', cx: xPercent(1, 'rate'), x1: xPercent(every.low!, 'rate') });
    expect(dupA).toMatchObject({ series: 'A', cx: xPercent(1, 'rate') });
    expect(dupB).toMatchObject({ series: 'B', cx: xPercent(0, 'rate') });
    const f1 = result.comparison.scenarios[0]!;
    const dupDifference = f1.rates.find((r) => r.rate === 'duplicateExecution')!.difference;
    const [passD, dupD] = marks(differences!);
    expect(passD).toMatchObject({ series: 'B − A', cx: xPercent(1, 'difference') });
    expect(dupD!.cx).toBeCloseTo(xPercent(-1, 'difference'), 2);
    expect(dupD!.x2).toBeCloseTo(xPercent(dupDifference.high!, 'difference'), 2);
    // Fewer duplicates and more PASS are both better: green, and said in the row's text.
    expect(differences).toContain('F1 · duplicates</tspan> −100 pp [−100, −61] better');
    expect(differences).toContain('stroke="#1a7f37"');
    expect(differences).not.toContain('stroke="#cf222e"');
  });

  it('a difference whose interval includes zero is grey, not better or worse', () => {
    const a = side([...times(5, DUPLICATED), ...times(5, {})], 'a');
    const b = side([...times(4, DUPLICATED), ...times(6, {})], 'b');
    const html = formatCompareHtml(compareOf(a, b));
    const differences = svgsOf(html)[1]!;
    expect(differences).toContain('F1 · duplicates</tspan> −10 pp');
    expect(differences).not.toContain(' better');
    expect(differences).not.toContain(' worse');
    expect(differences).toContain('stroke="#59636e"');
  });
});

describe('compare --html: the headline findings', () => {
  it('under their own heading, each marked better, worse or no difference, as its sentence says', () => {
    const better = formatCompareHtml(naiveAgainstCareful());
    expect(better).toContain('<h2 id="findings">Headline findings (B against A)</h2>');
    expect(better).toMatch(/<li class="finding-better"><span class="badge PASS">better<\/span> B \(F1\): .*better with B/);
    const worse = formatCompareHtml(compareOf(side(times(10, {}), 'careful'), side(times(10, DUPLICATED), 'naive')));
    expect(worse).toMatch(/<li class="finding-worse"><span class="badge FAIL">worse<\/span> B \(F1\): .*worse with B/);
    const even = formatCompareHtml(compareOf(side(times(3, {}), 'a'), side(times(3, {}), 'b')));
    expect(even).toMatch(/<li><span class="badge outline">no difference shown<\/span> B \(F1\): .*no difference shown/);
  });
});

describe('check --html over a trial: the rates per scenario', () => {
  it('one row per scenario with the PASS and the duplicate rate at their estimates and Wilson intervals', () => {
    const summary = summariseRuns([...times(3, DUPLICATED), ...times(17, {}), ...times(2, { scenario: 'F2' })]);
    const html = buildHtml(withTrialSummary(gatedTrial([], new Set(['FAIL'])), summary));
    expect(html).toContain('<h2 id="trial-rates">Rates per scenario</h2>');
    const [svg] = svgsOf(html);
    expect(XMLValidator.validate(svg!)).toBe(true);
    expect(svg).toContain('F1</tspan> PASS 85 % (17/20) · dup 15 % (3/20)');
    expect(svg).toContain('F2</tspan> PASS 100 % (2/2) · dup 0 % (0/2)');
    const [pass, duplicates] = marks(svg!);
    const passRate = proportion(17, 20);
    expect(pass).toMatchObject({ series: 'PASS rate' });
    expect(pass!.cx).toBeCloseTo(xPercent(0.85, 'rate'), 2);
    expect(pass!.x1).toBeCloseTo(xPercent(passRate.low!, 'rate'), 2);
    expect(pass!.x2).toBeCloseTo(xPercent(passRate.high!, 'rate'), 2);
    expect(duplicates!.cx).toBeCloseTo(xPercent(0.15, 'rate'), 2);
  });

  it('no picture without a trial summary (a folder of proxy reports)', () => {
    const html = buildHtml(gatedTrial([], new Set(['FAIL'])));
    expect(html).not.toContain('class="rate-chart"');
  });
});
