/**
 * `trial --agent-command … --model NAME --base-url URL` (the compiled CLI as a process, the shipped
 * example agent `examples/agents/sdk-agent.mjs`) in front of a hostile model endpoint
 * (test/support/hostile-model-endpoint.ts, a raw socket server in this process): the 600 MiB gzip
 * bomb (about 600 KB on the wire), deflate and br bombs past the documented 32 MiB decoded bound, and
 * status lines no HTTP library would write (`099`, `000`, a control character). Each is that run's
 * NOT_TESTED with the gateway's reason; every run has its run.json, the trial its summary, exit 0, and no
 * stack trace reaches stderr. The upstream is the bundled booking server, a process per run.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../test/support/proxy-harness.js';
import { startHostileEndpoint, type HostileShape } from '../test/support/hostile-model-endpoint.js';
import { BOOKING_UPSTREAM, removeOut, runTrial } from '../test/support/trial-harness.js';

const EXAMPLE_AGENT = join(ROOT, 'examples/agents/sdk-agent.mjs');
const MIB = 1024 * 1024;

describe('trial in front of a hostile model endpoint (forward mode)', () => {
  it('each hostile answer is that run NOT_TESTED with the reason; the other runs go on; the summary is written', async () => {
    const script: HostileShape[] = [
      { bomb: 'gzip', inflatedBytes: 600 * MIB },
      { bomb: 'deflate', inflatedBytes: 40 * MIB },
      { bomb: 'br', inflatedBytes: 40 * MIB },
      'status-099',
      'status-000',
      'status-control-char',
      'ok',
    ];
    const endpoint = await startHostileEndpoint(script, 'm-1');
    const output = await runTrial(
      [
        '--agent-command',
        process.execPath,
        '--agent-arg',
        EXAMPLE_AGENT,
        '--model',
        'm-1',
        '--base-url',
        endpoint.baseUrl,
        '--task',
        'Book a standard room for Ann Lee on 2026-05-01.',
        ...BOOKING_UPSTREAM,
        '--scenario',
        'F1',
        '--honesty',
        'off',
        '--runs',
        String(script.length),
      ],
      { timeoutMs: 150_000 },
    );
    try {
      expect(output.result.exitCode, output.result.stderr).toBe(0);
      expect(output.result.stderr).not.toMatch(/ERR_STRING_TOO_LONG|ERR_HTTP_INVALID|ERR_INVALID_CHAR|\n\s+at /);
      expect(endpoint.served).toEqual(script);
      expect(output.summary.groups[0]).toMatchObject({ runs: script.length, notTested: expect.any(Number) });
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
      const last = output.runs.at(-1)!.transcript.find((entry) => entry.kind === 'model-answer');
      expect(last).toMatchObject({ status: 200, content: 'All done.' });
    } finally {
      removeOut(output);
      await endpoint.close();
    }
  }, 180_000);
});
