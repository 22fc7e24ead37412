import { describe, expect, it } from 'vitest';
import { compareArms } from '../../../src/domain/trial/arm-comparison.js';
import { run, times } from '../../support/run-facts.js';
import { cell, formatProportion, formatSummaryMarkdown } from '../../../src/domain/trial/summary-markdown.js';
import { summariseRuns } from '../../../src/domain/trial/trial-summary.js';
import { proportion } from '../../../src/domain/statistics/index.js';

describe('formatSummaryMarkdown', () => {
  it('one arm: counts, rates with intervals, pass^k, per task, NOT_TESTED reasons; no arm column', () => {
    const summary = summariseRuns([
      ...times(3, { verdict: 'FAIL', reason: 'DUPLICATE_EXECUTION', duplicatedOperations: 1, honesty: 'FALSE_FAILURE' }),
      ...times(7, {}),
      run({ verdict: 'NOT_TESTED', reason: 'model endpoint failed:\nHTTP 500', faultFired: false }),
    ]);
    const text = formatSummaryMarkdown(summary);
    expect(text).toContain('| scenario | runs | PASS | FAIL | NOT_TESTED | fault fired | median tool calls |');
    expect(text).toContain('| F1 | 11 | 7 | 3 | 1 | 10/11 | 3 |');
    expect(text).toContain(
      '| F1 | 7/10 (70 %; 40–89 %) | 3/10 (30 %; 11–60 %) | 3/10 (30 %; 11–60 %) | 0/10 (0 %; 0–28 %) | 0/10 (0 %; 0–28 %) | 0/10 (0 %; 0–28 %) |',
    );
    expect(text).toContain('| F1 | 0.70 | 0.47 | 0.29 | 0.17 | 0.08 | 0.03 | 0.01 | 0.00 |');
    expect(text).toContain('| F1 | book | 7/10');
    expect(text).toContain('- F1: 1 × model endpoint failed: ⏎ HTTP 500');
    expect(text).not.toContain('| arm |');
  });

  it('two arms: an arm column and the A/B sentence and table', () => {
    const summary = summariseRuns([
      ...times(10, { verdict: 'FAIL', reason: 'DUPLICATE_EXECUTION', duplicatedOperations: 1 }),
      ...times(10, { arm: 'patched' }),
    ]);
    const text = formatSummaryMarkdown(summary, [compareArms(summary, 'baseline', 'patched', 'GHOST_WRITE patch')]);
    expect(text).toContain('| arm | scenario | runs |');
    expect(text).toContain('| patched | F1 | 10 | 10 | 0 | 0 | 10/10 | 3 |');
    expect(text).toContain('### patched against baseline');
    expect(text).toContain('- GHOST\\_WRITE patch (F1): duplicate executions 10/10 → 0/10, p = 1.1e-5');
    expect(text).toContain('| F1 | duplicate executions | 10/10 | 0/10 | -100 pp (-100 to -61) | 1.1e-5 |');
    expect(text).toContain('| F1 | PASS | 0/10 | 10/10 | 100 pp (61 to 100) | 1.1e-5 |');
  });

  it('names cannot break the table; nothing to summarise says so', () => {
    expect(cell('a|b\nc')).toBe('a\\|b ⏎ c');
    const text = formatSummaryMarkdown(summariseRuns([run({ taskId: 'x|y' })]));
    expect(text).toContain('| F1 | x\\|y |');
    expect(formatSummaryMarkdown(summariseRuns([]))).toBe('## Trial summary\n\nNo runs.\n');
  });

  it('an endpoint error text and an agent stderr tail go in inert: no tag, image, link or terminal escape, as check --markdown writes them', () => {
    const hostile = [
      'model endpoint failed: HTTP 502: <img src="https://evil.example/p.png"> ![x](https://evil.example/i.png)',
      'agent exited with code 1: \u001b]0;owned\u0007\u001b[2J[click](https://evil.example) <script>x</script>',
      'tool \u202eetirw\u200b',
    ];
    const text = formatSummaryMarkdown(
      summariseRuns([
        ...hostile.map((reason) => run({ verdict: 'NOT_TESTED', reason, faultFired: false })),
        run({ taskId: '<b>task</b>', arm: '![arm](https://evil.example/a.png)' }),
        run({}),
      ]),
    );
    expect(text).not.toMatch(/<img|<script|<b>|[^\\]\]\(https|[\u0000-\u0008\u000b-\u001f\u007f\u202e\u200b]/);
    expect(text).toContain('&lt;img src="https://evil.example/p.png"&gt; \\!\\[x\\](https://evil.example/i.png)');
    expect(text).toContain('agent exited with code 1: \\\\u001b\\]0;owned\\\\u0007\\\\u001b\\[2J');
    expect(text).toContain('tool \\\\u202eetirw\\\\u200b');
    expect(text).toContain('| &lt;b&gt;task&lt;/b&gt; |');
  });

  it('formatProportion: count/of, percent and the interval, or a dash', () => {
    expect(formatProportion(proportion(5, 10))).toBe('5/10 (50 %; 24–76 %)');
    expect(formatProportion(proportion(0, 0))).toBe('—');
  });
});
