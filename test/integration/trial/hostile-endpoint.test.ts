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
import { readTrialFiles } from '../../support/trial-harness.js';
import { COUNTING, ROOT, runCli } from '../../support/in-process-cli.js';
import { startHostileEndpoint, type HostileShape } from '../../support/hostile-model-endpoint.js';
import { inProcessTrial, modelArgs, TASK, useTrialServers } from '../../support/trial-runs.js';

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
        join(ROOT, 'test/fixtures/agents/gateway-requests-agent.mjs'),
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

  it("an agent program's transcript is bounded at 32 MB: a conversation re-sent whole with every request is cut there, with a notice; the run is still judged", async () => {
    // 6 requests, each re-sending the conversation grown by 4 MiB: 84 MiB of messages in all, 24 MiB in the last.
    const output = await inProcessTrial(servers.booking, [
      '--agent-command',
      process.execPath,
      '--agent-arg',
      join(ROOT, 'test/fixtures/agents/gateway-requests-agent.mjs'),
      '--agent-env-var',
      'REQUESTS=6',
      '--agent-env-var',
      `PAD_BYTES=${4 * 1024 * 1024}`,
      '--agent-transport',
      'http',
      '--stub-model',
      join(ROOT, 'examples/stub-models/booking-careful.yaml'),
      ...TASK,
      '--scenario',
      'F1',
      '--honesty',
      'off',
      '--runs',
      '2',
    ]);
    try {
      expect(output.result.code, output.result.stderr).toBe(0);
      expect(output.runs).toHaveLength(2);
      for (const run of output.runs) {
        const cut =
          "the transcript outgrew its limit of 32.0 MB at model request 4: from there on each text is kept as its first 1024 characters, its length and its sha256, and a model request's messages as their count, size and sha256";
        expect((run as unknown as { notices: string[] }).notices).toContain(cut);
        expect(output.result.stderr).toContain(`run ${run.run}: ${cut}`);
        // The run is judged as before: the program's own end, not the transcript's.
        expect(run.verdictReason).not.toMatch(/transcript/);
        const requests = run.transcript.filter((entry) => entry.kind === 'model-request');
        expect(requests).toHaveLength(6);
        // 4 + 8 + 12 MiB fit in 32 MB; the 4th request (16 MiB more) does not, nor anything after it.
        expect(requests.map((entry) => (entry['messages'] as unknown[]).length)).toEqual([2, 3, 4, 0, 0, 0]);
        expect(requests[3]!['messagesNotKept']).toEqual({
          count: 5,
          bytes: expect.any(Number),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        });
        expect((requests[3]!['messagesNotKept'] as { bytes: number }).bytes).toBeGreaterThan(16 * 1024 * 1024);
        expect(statSync(join(output.out, 'runs', run.run, 'run.json')).size).toBeLessThan(33 * 1024 * 1024);
      }
    } finally {
      output.remove();
    }
  });

  it('a run file that cannot be serialised (JSON.stringify past ~512 MB throws "Invalid string length") is that run NOT_TESTED; the next run is judged', async () => {
    const stringify = JSON.stringify.bind(JSON);
    let thrown = 0;
    const spy = vi.spyOn(JSON, 'stringify').mockImplementation(((value: unknown, ...rest: [never, never]) => {
      const run = value as { kind?: unknown; transcript?: unknown[] } | null;
      if (thrown === 0 && run?.kind === 'trial-run' && (run.transcript?.length ?? 0) > 0) {
        thrown++;
        throw new RangeError('Invalid string length');
      }
      return stringify(value, ...rest);
    }) as typeof JSON.stringify);
    let output: Awaited<ReturnType<typeof inProcessTrial>> | undefined;
    try {
      output = await inProcessTrial(servers.booking, [
        ...modelArgs(servers, 'careful'),
        ...TASK,
        '--scenario',
        'F1',
        '--runs',
        '2',
      ]);
    } finally {
      spy.mockRestore();
    }
    try {
      expect(output.result.code, output.result.stderr).toBe(0);
      expect(thrown).toBe(1);
      const [first, second] = output.runs;
      const reason =
        'the run file could not be written (Invalid string length): it was written without its transcript and report, and the run is not judged';
      expect(first).toMatchObject({ verdict: 'NOT_TESTED', verdictReason: reason, transcript: [], report: null });
      expect((first as unknown as { facts: { verdict: string; reason: string } }).facts).toMatchObject({
        verdict: 'NOT_TESTED',
        reason,
      });
      // What the upstream executed is still counted.
      expect(first!.executions).toBe(1);
      expect(output.result.stderr).toContain(`run ${first!.run}: ${reason}`);
      expect(second!.verdict).toBe('PASS');
      expect(output.summary.groups[0]).toMatchObject({ runs: 2, pass: 1, notTested: 1 });
    } finally {
      output.remove();
    }
  });
});
