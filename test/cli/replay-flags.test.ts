/**
 * The flags of record and replay (docs/replay.md) on `proxy` and `trial`: a replay never reaches a live
 * server, so it cannot be combined with one; the flags that only mean something with a recording say so.
 * Each is one line and exit 1, before anything starts.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReplayFlags } from '../../src/cli/replay-flags.js';
import { runCli } from '../support/in-process-cli.js';

describe('--upstream-replay, --allow-redacted, --redact', () => {
  it.each([
    [
      ['--upstream-replay', 'r.jsonl', '--upstream-command', 'node'],
      /give --upstream-replay \(a recording\) or --upstream-command/,
    ],
    [
      ['--upstream-replay', 'r.jsonl', '--upstream-url', 'http://127.0.0.1:1/mcp'],
      /or --upstream-url \(a live server\), not both/,
    ],
    [['--upstream-replay', 'r.jsonl', '--upstream-arg', 'x'], /--upstream-arg is for --upstream-command, not --upstream-replay/],
    [['--upstream-command', 'node', '--allow-redacted', 'on'], /--allow-redacted is for --upstream-replay/],
    [['--upstream-replay', 'r.jsonl', '--allow-redacted', 'yes'], /--allow-redacted must be on or off/],
    [['--upstream-command', 'node', '--redact', 'token'], /--redact is for the recording.*--journal FILE --journal-payloads on/],
    [
      ['--upstream-command', 'node', '--redact', 'a,,b', '--journal', 'j', '--journal-payloads', 'on'],
      /--redact has an empty item/,
    ],
    [['--upstream-replay', 'missing.jsonl'], /^\[[^\]]+\] error: recording .*missing\.jsonl: /],
  ])('proxy %j: one line, exit 1', async (flags, message) => {
    const { code, stderr } = await runCli(['proxy', ...flags]);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(message);
  });

  it('trial takes the same flags: a bad recording is one line, exit 1, before its output folder exists', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'replay-flags-'));
    const { code, stderr } = await runCli(
      ['trial', '--agent-command', 'node', '--task', 'Book a room.', '--upstream-replay', 'missing.jsonl', '--out', 'out'],
      { cwd },
    );
    expect(existsSync(join(cwd, 'out'))).toBe(false);
    rmSync(cwd, { recursive: true, force: true });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/error: recording .*missing\.jsonl: /);
  });
});

describe('trial --model-replay', () => {
  const base = ['trial', '--task', 'Book a room.', '--upstream-replay', 'r.jsonl', '--model-replay', 'r.jsonl'];
  it.each([
    [['--model', 'llama3'], /give --model-replay \(the model answered from a recording\) or --model, not both/],
    [['--base-url', 'http://127.0.0.1:1/v1'], /or --base-url, not both/],
    [['--agent-command', 'node', '--stub-model', 'examples/stub-models/booking-naive.yaml'], /or --stub-model, not both/],
    [
      ['--agent-command', 'node', '--model-fault', 'cut'],
      /--model-fault cut cannot be replayed through an agent program's gateway: it cuts the model's own answer/,
    ],
  ])('%j: one line, exit 1', async (flags, message) => {
    const { code, stderr } = await runCli([...base, ...flags]);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(message);
  });

  it('a recording that cannot answer the model is one line, exit 1, before its output folder exists', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'replay-flags-'));
    const { code, stderr } = await runCli(
      [
        'trial',
        '--agent-command',
        'node',
        '--task',
        'Book a room.',
        '--model-replay',
        'missing.jsonl',
        '--upstream-command',
        'node',
        '--out',
        'out',
      ],
      { cwd },
    );
    expect(existsSync(join(cwd, 'out'))).toBe(false);
    rmSync(cwd, { recursive: true, force: true });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/error: --model-replay: recording .*missing\.jsonl: /);
  });
});

describe('replay --live-upstream: the upstream spelled as proxy and trial spell it (issue 37 §3)', () => {
  it('--upstream-args is the comma list before the --upstream-arg values, as in proxy', () => {
    const flags = parseReplayFlags(
      ['runs/a'],
      { 'live-upstream': ['on'], 'upstream-command': ['node'], 'upstream-args': ['server.js,--port'], 'upstream-arg': ['8080'] },
      '/work',
    );
    expect(flags.upstream).toEqual({ command: 'node', args: ['server.js', '--port', '8080'] });
  });

  it.each([
    [
      { 'upstream-command': ['node'], 'upstream-args': ['a,b'] },
      '--upstream-command and --upstream-args name the real upstream of --live-upstream',
    ],
    [{ 'live-upstream': ['on'], 'upstream-args': ['a,b'] }, '--upstream-args needs --upstream-command'],
    [{ 'live-upstream': ['on'], 'upstream-command': ['node'], 'upstream-args': ['a,,b'] }, '--upstream-args has an empty item'],
  ])('%j: refused, naming --upstream-args', (values, message) => {
    expect(() => parseReplayFlags(['runs/a'], values, '/work')).toThrow(message);
  });
});
