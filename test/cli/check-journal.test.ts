/**
 * `check --html --journal` with a journal that has no session of the report checked: the timeline comes
 * from the report, and stderr says so (the user asked for that journal and would otherwise believe the
 * timeline exact). The journal of the report itself: test/integration/proxy/in-process.test.ts.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/in-process-cli.js';
import { documentOf, naiveF1, tempFiles } from '../support/report-docs.js';

let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => files?.remove());

const line = (value: Record<string, unknown>): string => `${JSON.stringify({ v: 1, ...value })}\n`;

describe('check --html --journal with another session’s journal', () => {
  it('says on stderr that the journal has no session of the report, and draws the report’s own timeline', async () => {
    const journal =
      line({ event: 'journal', at: 1, harnessVersion: 'test', payloads: false }) +
      line({ event: 'opened', at: 2, session: 'stdio', scenario: 'scenario F1', report: '/elsewhere/other-report.json' }) +
      line({
        event: 'received',
        at: 3,
        session: 'stdio',
        attempt: 1,
        tool: 'create_booking',
        class: 'write',
        operation: 1,
        fault: 'F1',
      });
    files = tempFiles({ 'report.json': documentOf(naiveF1()), 'journal.jsonl': journal });
    const r = await runCli(
      ['check', files.path('report.json'), '--html', files.path('r.html'), '--journal', files.path('journal.jsonl')],
      { env: { GITHUB_STEP_SUMMARY: '' } },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `journal ${files.path('journal.jsonl')}: none of its 1 session(s) is that of ${files.path('report.json')} (another proxy's or run's journal?): that report's timeline is drawn from the report`,
    );
    const html = readFileSync(files.path('r.html'), 'utf8');
    expect(html).toContain('write attempt(s)');
    expect(html).not.toContain('<th>time</th>');
  });
});
