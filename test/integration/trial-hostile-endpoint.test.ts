/**
 * `trial` against a hostile model endpoint, in-process (the CLI's `main`) with the scripted model server:
 * a conversation that would grow without end (60 tool calls per reply, 9 MB answers each, from the
 * counting upstream) ends its run NOT_TESTED at the documented 32 MB, the other runs go on and the
 * summary is written; a key in the base URL's query is never written to the trial's files. An agent
 * program behind the gateway in forward mode, in front of a hostile endpoint (test/support/hostile-model-endpoint.ts):
 * each hostile answer is that run's NOT_TESTED with the gateway's reason, and the trial goes on.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readTrialFiles } from '../../e2e/support/trial-harness.js';
import { COUNTING, ROOT, runCli } from '../support/in-process-cli.js';
import { startHostileEndpoint, type HostileShape } from '../support/hostile-model-endpoint.js';
import { inProcessTrial, modelArgs, TASK, useTrialServers } from '../support/trial-runs.js';

// Whole trials over loopback HTTP, tens of MB through the proxy: seconds on a loaded machine (no duration is asserted).
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const servers = useTrialServers();
const scratch = mkdtempSync(join(tmpdir(), 'harness-trial-hostile-'));
afterAll(() => (process.env.KEEP ? console.log(scratch) : rmSync(scratch, { recursive: true, force: true })));

describe('R-13 trial against a hostile model endpoint', () => {
  it('a conversation that outgrows 32 MB ends its run NOT_TESTED with the reason; the next run still runs; the summary is written', async () => {
    const out = join(scratch, 'flood');
    const result = await runCli([
      'trial',
      ...modelArgs(servers, 'flood'),
      ...TASK,
      ...COUNTING,
      '--honesty',
      'off',
      '--runs',
      '2',
      '--out',
      out,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const { summary, runs } = readTrialFiles(out);
    expect(summary.groups[0]).toMatchObject({ runs: 2, notTested: 2 });
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(run.verdict).toBe('NOT_TESTED');
      expect(run.stoppedBy).toBe('conversation-limit');
      // 3 answers of 9 MB fit in 32 MB; the 4th does not: it was made (the report counts it), the other 56 never were.
      expect(run.verdictReason).toBe(
        "the conversation outgrew its limit of 32.0 MB (34.3 MB with the result of get_order, tool call 4 of step 1 in turn 1; the reply's 56 later tool call(s) were not made); the run ends here",
      );
      expect(run.toolCalls).toBe(4);
      expect((run.report?.report as { coverage?: { calls?: unknown } } | undefined)?.coverage?.calls).toMatchObject({ read: 4 });
      const results = run.transcript.filter((entry) => entry.kind === 'tool-result');
      expect(results.map((entry) => String(entry['content']).length)).toEqual([
        9_000_000,
        9_000_000,
        9_000_000,
        expect.any(Number),
      ]);
      expect(String(results[3]!['content'])).toMatch(
        /^x{1024}… \(8998976 more characters not kept: the conversation outgrew its limit\)$/,
      );
      // The run file holds the conversation once: bounded by the limit, not by what the endpoint asked for.
      expect(statSync(join(out, 'runs', run.run, 'run.json')).size).toBeLessThan(34 * 1024 * 1024);
    }
    // One model request per run: the conversation never went back to the endpoint over the limit.
    expect(servers.model.requests.filter((r) => r.model === 'flood')).toHaveLength(2);
  });

  it("an API key in the base URL's query never reaches summary.json or run.json; api-version is kept, other values are ***", async () => {
    const base = `${servers.model.baseUrl}?api-version=2024-06-01&key=sk-SECRET-QUERY`;
    const output = await inProcessTrial(servers.booking, ['--model', 'careful', '--base-url', base, ...TASK, '--runs', '1']);
    try {
      expect(output.result.code, output.result.stderr).toBe(0);
      const files = [
        join(output.out, 'summary.json'),
        ...readdirSync(join(output.out, 'runs')).map((id) => join(output.out, 'runs', id, 'run.json')),
      ];
      for (const file of files) expect(readFileSync(file, 'utf8'), file).not.toContain('sk-SECRET');
      const redacted = `${servers.model.baseUrl}?api-version=2024-06-01&key=***`;
      const summary = JSON.parse(readFileSync(files[0]!, 'utf8')) as {
        agent: { baseUrl: string };
        provenance: { agent: { baseUrl: string } };
      };
      expect(summary.agent.baseUrl).toBe(redacted);
      expect(summary.provenance.agent.baseUrl).toBe(redacted);
      expect(output.runs[0]!.agent['baseUrl']).toBe(redacted);
      expect(output.result.stderr + output.result.stdout).not.toContain('sk-SECRET');
      // The request itself went to the URL as given.
      expect(output.runs[0]!.verdict).toBe('PASS');
    } finally {
      output.remove();
    }
  });

  it('an agent program behind the forward gateway: each hostile answer (compression bombs, invalid status lines) is that run NOT_TESTED with the reason, the other runs go on', async () => {
    const MIB = 1024 * 1024;
    // Each just past the documented 32 MiB decoded bound; one POST per run (the agent sends one request).
    const script: HostileShape[] = [
      { bomb: 'gzip', inflatedBytes: 40 * MIB },
      { bomb: 'deflate', inflatedBytes: 40 * MIB },
      { bomb: 'br', inflatedBytes: 40 * MIB },
      'status-099',
      'status-000',
      'status-control-char',
      'ok',
    ];
    const endpoint = await startHostileEndpoint(script, 'm-1');
    try {
      const output = await inProcessTrial(servers.booking, [
        '--agent-command',
        process.execPath,
        '--agent-arg',
        join(ROOT, 'test/fixtures/agents/one-request-agent.mjs'),
        '--agent-transport',
        'http',
        '--model',
        'm-1',
        '--base-url',
        endpoint.baseUrl,
        ...TASK,
        '--scenario',
        'F1',
        '--honesty',
        'off',
        '--runs',
        String(script.length),
      ]);
      try {
        expect(output.result.code, output.result.stderr).toBe(0);
        expect(output.result.stderr).not.toMatch(/ERR_|\n\s+at /);
        expect(endpoint.served).toEqual(script);
        expect(output.summary.groups[0]).toMatchObject({ runs: script.length });
        expect(output.runs).toHaveLength(script.length);
        const failed = (why: string) => ['NOT_TESTED', `the model gateway could not carry model request 1 through: ${why}`];
        const tooLarge =
          "the model endpoint's answer is larger than the model gateway reads (32 MiB once decompressed): the request was ended";
        const statusLine = 'the model endpoint answered with an invalid status line';
        expect(output.runs.map((run) => [run.verdict, run.verdictReason])).toEqual([
          failed(tooLarge),
          failed(tooLarge),
          failed(tooLarge),
          failed(`${statusLine} (status 99, message "Odd")`),
          failed(`${statusLine} (status 0, message "Zero")`),
          failed(`${statusLine} (status 200, message "O\\u0001K" has a control character)`),
          [expect.any(String), expect.not.stringMatching(/model gateway/)],
        ]);
        const answers = output.runs.map((run) => run.transcript.find((entry) => entry.kind === 'model-answer'));
        // A bomb is a 502 when its first bytes on the wire already inflate past the bound, else its connection
        // is cut after the head went out (TCP's chunking decides): either way the gateway's failure.
        for (const answer of answers.slice(0, 3))
          expect(answer).toMatchObject({ status: expect.toBeOneOf([200, 502]), gatewayFailure: true });
        for (const answer of answers.slice(3, -1)) expect(answer).toMatchObject({ status: 502, gatewayFailure: true });
        // The last run's one request was carried through: its answer is in the transcript.
        const last = output.runs.at(-1)!.transcript.find((entry) => entry.kind === 'model-answer');
        expect(last).toMatchObject({ status: 200, content: 'All done.' });
      } finally {
        output.remove();
      }
    } finally {
      await endpoint.close();
    }
  });
});
