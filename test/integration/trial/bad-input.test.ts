/**
 * `trial` bad input, in-process (the CLI's `main`): one clear line on stderr, exit 1, nothing
 * on stdout and no run started — an unreachable endpoint and an unknown model are found before the first
 * run; so are bad numbers, a missing task file, both or neither of --model / --agent-command, and proxy
 * flags that make no sense in a trial. (The compiled CLI as a process, for the family: one case and
 * `trial-relay` in e2e/trial-cli.e2e.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startModelServer, type ModelServer } from '../../fixtures/model-server/model-server.js';
import { runCli, type CliResult } from '../../support/in-process-cli.js';
import { TASK } from '../../support/trial-runs.js';

// Whole trials over loopback HTTP: seconds on a loaded machine (no duration is asserted).
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

/** Never started: every case is refused before the upstream (a start would fail with another message). */
const BOOKING_UPSTREAM = ['--upstream-command', process.execPath, '--upstream-arg', 'no-such-booking-server.js'];
const PREFIX = '[cuonztech-agent-harness] error:';
let server: ModelServer;
let dir: string;
let closedPort: number;

beforeAll(async () => {
  server = await startModelServer();
  dir = mkdtempSync(join(tmpdir(), 'harness-trial-cli-'));
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function trial(args: string[]): Promise<{ result: CliResult; out: string }> {
  const out = join(dir, `out-${Math.random().toString(16).slice(2)}`);
  const argv = args.map((a) => (a === '{base}' ? server.baseUrl : a));
  return { result: await runCli(['trial', ...argv, '--out', out]), out };
}

function expectOneLineError({ result, out }: { result: CliResult; out: string }, pattern: RegExp): void {
  const stderr = result.stderr;
  expect(result.code, stderr).toBe(1);
  expect(result.stdout).toBe('');
  const lines = stderr.split('\n').filter((l) => l !== '');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]!.startsWith(PREFIX), stderr).toBe(true);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/^\s+at /m);
  // Nothing ran, and nothing is left behind: not even an empty output folder (--out named a new one).
  expect(existsSync(out), `${out} was left behind`).toBe(false);
}

/** `{base}` stands for the model server's URL (the cases are listed before it starts). */
const model = (name: string, ...rest: string[]) => [
  '--model',
  name,
  '--base-url',
  '{base}',
  ...TASK,
  ...BOOKING_UPSTREAM,
  ...rest,
];

describe.concurrent('R-13 trial: bad input is one line and exit 1, before any run (in-process)', () => {
  it('an unreachable endpoint', async () => {
    expectOneLineError(
      await trial(['--model', 'careful', '--base-url', `http://127.0.0.1:${closedPort}/v1`, ...TASK, ...BOOKING_UPSTREAM]),
      /model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 is not usable: fetch failed/,
    );
  });
  it('forward mode: an unreachable --base-url, before any run and before the output folder', async () => {
    expectOneLineError(
      await trial([
        '--agent-command',
        'node',
        '--model',
        'careful',
        '--base-url',
        `http://127.0.0.1:${closedPort}/v1`,
        ...BOOKING_UPSTREAM,
      ]),
      /model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 \(--base-url\) is not reachable: connection refused$/,
    );
  });
  it('an unknown model', async () => {
    expectOneLineError(
      await trial(model('no-such-model')),
      /unknown model "no-such-model" at http:\/\/127\.0\.0\.1:\d+\/v1 \(it lists: careful, naive/,
    );
  });
  const cases: Array<[string, string[], RegExp]> = [
    ['--runs 0', model('careful', '--runs', '0'), /flag --runs must be an integer from 1 to 100000, got "0"/],
    ['--runs 1.5', model('careful', '--runs', '1.5'), /flag --runs must be an integer/],
    ['--runs abc', model('careful', '--runs', 'abc'), /flag --runs must be an integer/],
    ['--concurrency 0', model('careful', '--concurrency', '0'), /flag --concurrency must be an integer from 1 to 64/],
    ['--max-steps 2.5', model('careful', '--max-steps', '2.5'), /flag --max-steps must be an integer/],
    ['--temperature 3', model('careful', '--temperature', '3'), /flag --temperature must be a number from 0 to 2/],
    ['--is-error maybe', model('careful', '--is-error', 'maybe'), /flag --is-error must be visible or hidden/],
    [
      'a missing task file',
      ['--model', 'careful', '--base-url', 'http://127.0.0.1:9/v1', '--task-file', 'no-such-tasks.yaml', ...BOOKING_UPSTREAM],
      /task file not found: .*no-such-tasks\.yaml/,
    ],
    [
      '--model with --agent-command (forward mode) without --base-url',
      ['--model', 'careful', '--agent-command', 'node', ...TASK, ...BOOKING_UPSTREAM],
      /--model with --agent-command \(forward mode\) needs --base-url URL/,
    ],
    [
      '--base-url with --agent-command but no --model',
      ['--agent-command', 'node', '--base-url', '{base}', ...BOOKING_UPSTREAM],
      /flag --base-url with --agent-command is forward mode: it needs --model NAME/,
    ],
    [
      '--stub-model and --base-url',
      ['--agent-command', 'node', '--stub-model', 'x.yaml', '--model', 'careful', '--base-url', '{base}', ...BOOKING_UPSTREAM],
      /give --stub-model \(the harness plays the model\) or --base-url \(the gateway forwards to a real endpoint\), not both/,
    ],
    [
      '--stub-model and --model',
      ['--agent-command', 'node', '--stub-model', 'x.yaml', '--model', 'careful', ...BOOKING_UPSTREAM],
      /give --stub-model .* or --model with --base-url \(forward mode\), not both/,
    ],
    [
      '--model-retries in forward mode (the gateway retries nothing)',
      ['--agent-command', 'node', '--model', 'careful', '--base-url', '{base}', '--model-retries', '2', ...BOOKING_UPSTREAM],
      /flag --model-retries is for the built-in agent loop \(--model without --agent-command\) only/,
    ],
    [
      '--model-fault 503',
      model('careful', '--model-fault', '503'),
      /--model-fault "503": expected 500, 429\[:SECONDS\], timeout\[:MS\] or cut$/,
    ],
    [
      '--model-fault timeout:0',
      model('careful', '--model-fault', 'timeout:0'),
      /--model-fault "timeout:0": MS must be a whole number/,
    ],
    [
      '--model-fault-on 0',
      model('careful', '--model-fault', '500', '--model-fault-on', '0'),
      /--model-fault-on "0": expected after-write/,
    ],
    [
      '--model-fault-on without --model-fault',
      model('careful', '--model-fault-on', '2'),
      /flag --model-fault-on says which request --model-fault hits: give --model-fault KIND too/,
    ],
    [
      '--model-fault for an agent program without the gateway',
      ['--agent-command', 'node', '--model-fault', '500', ...BOOKING_UPSTREAM],
      /flag --model-fault needs the model's side: --model, or --agent-command with --stub-model, --model or --model-replay/,
    ],
    ['neither --model nor --agent-command', [...TASK, ...BOOKING_UPSTREAM], /give --model NAME .* or --agent-command CMD/],
    ['--model without a task', ['--model', 'careful', ...BOOKING_UPSTREAM], /--model needs --task TEXT/],
    ['--task and --task-file', model('careful', '--task-file', 'x.json'), /give --task\/--follow-up or --task-file, not both/],
    ['no upstream', ['--model', 'careful', ...TASK], /--upstream-command is required/],
    [
      'an upstream that does not start',
      ['--model', 'careful', '--base-url', '{base}', ...TASK, '--upstream-command', 'no-such-upstream-binary'],
      /upstream did not start: .*no-such-upstream-binary/,
    ],
    [
      'an upstream script path that does not exist (its Node error is shown, not the version banner)',
      ['--model', 'careful', '--base-url', '{base}', ...TASK, ...BOOKING_UPSTREAM],
      /upstream did not start: .*\(exit code 1\): Error: Cannot find module '.*no-such-booking-server\.js'$/,
    ],
    [
      '--scenario and --scenarios',
      model('careful', '--scenario', 'F1', '--scenarios', 'F1,F2'),
      /give --scenario or --scenarios, not both/,
    ],
    [
      '--scenarios F9',
      model('careful', '--scenarios', 'F1,F9'),
      /flag --scenarios must be one of F1, F2, F3, F4, F5, F6, F7, got "F9"/,
    ],
    ['--scenarios F1,f1', model('careful', '--scenarios', 'F1,f1'), /flag --scenarios names F1 twice/],
    ['--report-file', model('careful', '--report-file', 'r.json'), /flag --report-file is not used by trial/],
    ['--listen', model('careful', '--listen', '127.0.0.1:0'), /flag --listen is not used by trial/],
    ['--agent-arg with --model', model('careful', '--agent-arg', 'x'), /flag --agent-arg is for --agent-command only/],
    [
      '--temperature with --agent-command',
      ['--agent-command', 'node', '--temperature', '1', ...BOOKING_UPSTREAM],
      /flag --temperature is for the built-in agent loop \(--model without --agent-command\) only/,
    ],
    [
      '--agent-transport sse',
      ['--agent-command', 'node', '--agent-transport', 'sse', ...BOOKING_UPSTREAM],
      /flag --agent-transport must be stdio or http/,
    ],
    [
      '--reset-command with --concurrency 2',
      model('careful', '--reset-command', 'true', '--concurrency', '2'),
      /--reset-command .* needs --concurrency 1/,
    ],
    [
      '--api-key-env naming an unset variable',
      model('careful', '--api-key-env', 'CUONZTECH_NO_SUCH_KEY'),
      /environment variable CUONZTECH_NO_SUCH_KEY \(named by --api-key-env\) is not set/,
    ],
    [
      'a model id with a line feed (it would cut, or forge, the one-line error that quotes it)',
      model('careful\n[cuonztech-agent-harness] all runs PASS'),
      /flag --model takes a model name without control characters, got "careful\\n\[cuonztech-agent-harness\] all runs PASS"$/,
    ],
    [
      '--base-url ftp://',
      ['--model', 'careful', '--base-url', 'ftp://x/v1', ...TASK, ...BOOKING_UPSTREAM],
      /flag --base-url must be an http\(s\) URL/,
    ],
  ];
  for (const [name, args, pattern] of cases) {
    it(name, async () => expectOneLineError(await trial(args), pattern));
  }
  it('an output folder that already holds the runs of a trial (never mixed, never overwritten)', async () => {
    const out = join(dir, 'used');
    mkdirSync(join(out, 'runs', 'F1-001'), { recursive: true });
    const result = await runCli([
      'trial',
      '--model',
      'careful',
      '--base-url',
      server.baseUrl,
      ...TASK,
      ...BOOKING_UPSTREAM,
      '--out',
      out,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(`${PREFIX} output folder ${out} already holds the runs of a trial; choose another --out`);
    expect(readdirSync(join(out, 'runs'))).toEqual(['F1-001']);
  });
  it('a FIFO or a device as --task-file, --patch-file or --system-prompt is refused by its kind, never waited on or read without end', async () => {
    const fifo = join(dir, 'tasks.fifo');
    execFileSync('mkfifo', [fifo]);
    const base = ['--model', 'careful', '--base-url', server.baseUrl, ...BOOKING_UPSTREAM];
    expectOneLineError(
      await trial([...base, '--task-file', fifo]),
      /task file .*tasks\.fifo is a FIFO \(named pipe\), not a regular file$/,
    );
    expectOneLineError(
      await trial([...base, ...TASK, '--patch-file', fifo]),
      /patch file .*tasks\.fifo is a FIFO \(named pipe\), not a regular file$/,
    );
    expectOneLineError(
      await trial([...base, ...TASK, '--system-prompt', fifo]),
      /flag --system-prompt names .*tasks\.fifo, which is not a file$/,
    );
    expectOneLineError(
      await trial([...base, '--task-file', '/dev/zero']),
      /task file \/dev\/zero is a character device, not a regular file$/,
    );
  });
  it('a task file that is not valid YAML, and one without tasks', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'tasks: [unclosed\n');
    expectOneLineError(
      await trial(['--model', 'careful', '--base-url', server.baseUrl, '--task-file', bad, ...BOOKING_UPSTREAM]),
      /task file .*bad\.yaml is not valid YAML/,
    );
    // A JSON task file is never quoted back (issue 41 §8): a .env given by mistake says where only.
    const env = join(dir, 'tasks.json');
    writeFileSync(env, 'OPENAI_API_KEY=sk-live-SECRET-4242\n');
    const quoted = await trial(['--model', 'careful', '--base-url', server.baseUrl, '--task-file', env, ...BOOKING_UPSTREAM]);
    expectOneLineError(quoted, /task file .*tasks\.json is not valid JSON: invalid JSON at line 1, column 1$/);
    expect(quoted.result.stderr).not.toContain('SECRET');
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '{"tasks": []}');
    expectOneLineError(
      await trial(['--model', 'careful', '--base-url', server.baseUrl, '--task-file', empty, ...BOOKING_UPSTREAM]),
      /needs a non-empty list "tasks"/,
    );
  });
});
