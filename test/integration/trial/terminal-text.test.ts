/**
 * Text from outside reaches the operator's terminal escaped (as `proxy`'s notices do, see
 * src/domain/text/terminal-text.ts): an agent program's stderr quoted in a NOT_TESTED reason — on the progress
 * line and under the table — and what a run file says, in `stats`' table, can neither clear the screen,
 * retitle the window nor forge a line.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { mergeFolders, type TrialFolderInput } from '../../../src/app/stats/stats.js';
import { formatStatsTable } from '../../../src/app/stats/stats-text.js';
import { inProcessTrial, TASK, useTrialServers } from '../../support/trial-runs.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const servers = useTrialServers();
const ESC = '\u001b';

describe('terminal text in trial and stats', () => {
  it("an agent program's stderr with escape sequences is shown escaped on stderr and stdout, kept as is in the run file", async () => {
    const output = await inProcessTrial(servers.booking, [
      '--agent-command',
      'sh',
      '--agent-arg',
      '-c',
      '--agent-arg',
      'printf "\\033[2J\\033]0;owned\\007boom" >&2; exit 3',
      ...TASK,
      '--scenario',
      'F1',
      '--runs',
      '1',
    ]);
    try {
      const { result } = output;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toContain(ESC);
      expect(result.stderr).not.toContain(ESC);
      expect(result.stdout).toContain('stderr: \\u001b[2J\\u001b]0;owned\\u0007boom');
      expect(result.stderr).toContain('stderr: \\u001b[2J\\u001b]0;owned\\u0007boom');
      expect(output.runs[0]!.verdictReason).toContain(`${ESC}[2J`);
    } finally {
      output.remove();
    }
  });

  it('--agent-command: the end line of each MCP session names the run\'s report file (not "no report file")', async () => {
    const agent = join(import.meta.dirname, '../../../e2e/fixtures/trial-agents/two-session-agent.mjs');
    const output = await inProcessTrial(servers.booking, [
      '--agent-command',
      process.execPath,
      '--agent-arg',
      agent,
      '--agent-transport',
      'http',
      ...TASK,
      '--runs',
      '1',
    ]);
    try {
      const { result } = output;
      expect(result.code, result.stderr).toBe(0);
      const run = output.runs[0]!;
      const ends = result.stderr.split('\n').filter((line) => line.includes(`run ${run.run}: session `));
      // The agent opens two MCP sessions; the run judges them as one.
      expect(ends).toHaveLength(1);
      expect(ends[0]).toMatch(/finished: FAIL, score 0\/100; report \S+report\.json$/);
      expect(ends[0]).toContain(`report ${(run as unknown as { reportFile: string }).reportFile}`);
    } finally {
      output.remove();
    }
  });

  it("stats: a run file's reason and scenario with control characters are escaped in the table", () => {
    const run = {
      kind: 'trial-run',
      harnessVersion: '0.7.0',
      run: 'F1-001',
      scenario: 'F1',
      task: 'default',
      verdict: 'NOT_TESTED',
      verdictReason: `bad${ESC}[2J\u202eevil`,
      toolCalls: 0,
      report: null,
    };
    const input: TrialFolderInput = {
      kind: 'trial',
      path: 'a',
      summaryProblem: null,
      summary: { kind: 'trial-summary', harnessVersion: '0.7.0', agent: {}, tasks: [], runsPerGroup: 1, scenarios: ['F1'] },
      runs: [{ path: 'a/runs/F1-001/run.json', value: run, problem: null }],
    };
    const merged = mergeFolders([input]);
    if (!merged.ok) throw new Error(merged.message);
    const table = formatStatsTable(merged.result);
    expect(table).not.toContain(ESC);
    expect(table).toContain('bad\\u001b[2J\\u202eevil');
  });
});
