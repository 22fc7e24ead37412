/**
 * `trial --config FILE` and `init`, in-process (nothing here starts a process): the file and the flags it
 * stands for give the same plan and the same settings hash; a flag on the command line overrides its
 * key; a bad file is one line naming the key and its line, exit 1, and nothing is started or created;
 * `init` writes the starter, keeps an existing file unless --force, never follows a link. The runs
 * themselves (a starter as it is, and the same trial from flags): e2e/trial-config.e2e.test.ts.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsHash } from '../../src/app/trial/trial-settings.js';
import type { FlagValues } from '../../src/cli/argv.js';
import { resolveTrialFlags, upstreamSettings } from '../../src/cli/trial-config.js';
import { parseTrialFlags, type TrialFlags } from '../../src/cli/trial-flags.js';
import { ROOT, runCli, type CliResult } from '../support/in-process-cli.js';

const PREFIX = '[cuonztech-agent-harness] error:';
const STUB = join(ROOT, 'examples/stub-models/booking-careful.yaml');
const NOW = new Date('2026-12-01T00:00:00Z');
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'harness-trial-config-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a config file into the test folder; answers its name. */
function config(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

/** Argv as the CLI's `flagValues` reads it: `--flag value` pairs, repeated flags collected. */
function values(argv: string[]): FlagValues {
  const out: Record<string, string[]> = {};
  for (let i = 0; i < argv.length; i += 2) (out[argv[i]!.slice(2)] ??= []).push(argv[i + 1]!);
  return out;
}

/** The plan and settings hash `trial` would run with, from a command line (with or without --config). */
async function resolved(argv: string[]): Promise<{ flags: TrialFlags; hash: string; fromFile: string[] }> {
  const given = await resolveTrialFlags(values(argv), dir);
  let flags: TrialFlags;
  try {
    flags = await parseTrialFlags(given.values, {}, dir, NOW, given.inline);
  } catch (error) {
    throw given.locate(error);
  }
  return { flags, hash: settingsHash(flags.plan, upstreamSettings(flags), sha256), fromFile: given.source.fromFile };
}

const FLAGS = [
  '--upstream-command',
  'node',
  '--upstream-arg',
  'server.js',
  '--upstream-arg',
  '--port,1',
  '--upstream-env-var',
  'BOOKING_LEDGER={run_dir}/ledger.jsonl',
  '--agent-command',
  'node',
  '--agent-arg',
  'agent.js',
  '--agent-env-var',
  'MODE=careful',
  '--stub-model',
  STUB,
  '--task',
  'Book a standard room for Ann Lee on 2026-05-01.',
  '--follow-up',
  'Please try again.',
  '--scenarios',
  'F1,F2',
  '--retry-after',
  '5',
  '--latency',
  '5',
  '--model-fault',
  '429:2',
  '--key-fields',
  'idempotency_key,request_id',
  '--runs',
  '3',
  '--seed',
  '7',
  '--concurrency',
  '2',
];

const YAML = `upstream:
  command: node
  args: [server.js, "--port,1"]
  env: { BOOKING_LEDGER: "{run_dir}/ledger.jsonl" }
agent:
  command: node
  args: [agent.js]
  env: { MODE: careful }
model:
  stub: ${JSON.stringify(STUB)}
task: Book a standard room for Ann Lee on 2026-05-01.
follow_ups: [Please try again.]
scenarios: [F1, F2]
faults:
  retry_after: 5
  latency: 5
  model: "429:2"
tools:
  key_fields: [idempotency_key, request_id]
runs: 3
seed: 7
concurrency: 2
`;

describe('trial --config: the same settings as the flags it stands for', () => {
  it('a YAML file, a JSON file and the flags: the same plan and the same settings hash', async () => {
    const fromFlags = await resolved(FLAGS);
    const fromYaml = await resolved(['--config', config('same.yaml', YAML)]);
    const asJson = {
      upstream: { command: 'node', args: ['server.js', '--port,1'], env: { BOOKING_LEDGER: '{run_dir}/ledger.jsonl' } },
      agent: { command: 'node', args: ['agent.js'], env: { MODE: 'careful' } },
      model: { stub: STUB },
      task: 'Book a standard room for Ann Lee on 2026-05-01.',
      follow_ups: ['Please try again.'],
      scenarios: 'F1,F2',
      faults: { retry_after: 5, latency: '5', model: '429:2' },
      tools: { key_fields: ['idempotency_key', 'request_id'] },
      runs: 3,
      seed: 7,
      concurrency: 2,
    };
    const fromJson = await resolved(['--config', config('same.json', JSON.stringify(asJson, null, 2))]);
    expect(fromYaml.flags.plan).toEqual(fromFlags.flags.plan);
    expect(fromYaml.flags.proxy).toEqual(fromFlags.flags.proxy);
    expect(fromJson.flags.plan).toEqual(fromFlags.flags.plan);
    expect(fromYaml.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(fromYaml.hash).toBe(fromFlags.hash);
    expect(fromJson.hash).toBe(fromFlags.hash);
  });

  it('the hash covers resolved values: a default given or left out, another spelling of a flag, the stub script inline or in its file', async () => {
    const base = await resolved(FLAGS);
    // --upstream-env, the comma-list spelling of --upstream-env-var; scenario ids in lower case.
    const spelled = FLAGS.map((v) => (v === '--upstream-env-var' ? '--upstream-env' : v === 'F1,F2' ? 'f1, f2' : v));
    expect((await resolved([...spelled, '--upstream-timeout', '60', '--agent-transport', 'stdio'])).hash).toBe(base.hash);
    const inline = YAML.replace(
      `  stub: ${JSON.stringify(STUB)}\n`,
      `  stub:\n${readFileSync(STUB, 'utf8')
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#'))
        .map((line) => `    ${line}`)
        .join('\n')}\n`,
    );
    expect((await resolved(['--config', config('inline.yaml', inline)])).hash).toBe(base.hash);
    // What runs differs: so does the hash.
    expect((await resolved([...FLAGS.slice(0, -2), '--concurrency', '1'])).hash).not.toBe(base.hash);
    expect((await resolved(['--config', config('other.yaml', YAML.replace('MODE: careful', 'MODE: naive'))])).hash).not.toBe(
      base.hash,
    );
    // Where the outputs go is not a setting of what runs.
    expect((await resolved([...FLAGS, '--out', 'elsewhere', '--log-level', 'debug'])).hash).toBe(base.hash);
  });

  it('a flag on the command line overrides its key; --scenario, --upstream-url and --task replace the keys they stand for', async () => {
    const name = config('override.yaml', YAML);
    const runs = await resolved(['--config', name, '--runs', '1']);
    expect(runs.flags.plan.runs).toBe(1);
    expect(runs.fromFile).not.toContain('runs');
    expect(runs.fromFile).toContain('concurrency');
    // --scenario F2 replaces the file's [F1, F2] (and keeps its F2 retry_after).
    const one = await resolved(['--config', name, '--scenario', 'F2']);
    expect(one.flags.plan.scenarios).toEqual([
      { mode: 'scenario', id: 'F2', parameters: { retryAfterSeconds: 5 }, latency: { ms: 5, jitterMs: 0 } },
    ]);
    // The upstream by URL replaces the file's command with its args, cwd and env.
    const url = await resolved(['--config', name, '--upstream-url', 'http://127.0.0.1:9/mcp']);
    expect(url.flags.proxy.upstreamUrl?.href).toBe('http://127.0.0.1:9/mcp');
    expect(url.flags.proxy.upstreamCommand).toBeUndefined();
    expect(url.flags.proxy.upstreamArgs).toEqual([]);
    // A list on the command line replaces the file's list (it is not appended to).
    const args = await resolved(['--config', name, '--agent-arg', 'other.js']);
    expect(args.flags.plan.agent).toMatchObject({ args: ['other.js'] });
    const tasks = await resolved([
      '--config',
      config(
        'tasks.yaml',
        YAML.replace(/task: .*\nfollow_ups: .*\n/, 'tasks:\n  - { id: book, task: Book it. }\n  - Cancel it.\n'),
      ),
    ]);
    expect(tasks.flags.plan.tasks.map((t) => t.id)).toEqual(['book', 'task2']);
    const task = await resolved(['--config', 'tasks.yaml', '--task', 'Only this.']);
    expect(task.flags.plan.tasks.map((t) => t.task)).toEqual(['Only this.']);
  });
});

describe('trial --model-seed and its older name --seed (issue 37 §3)', () => {
  const withoutSeed = (): string[] => {
    const at = FLAGS.indexOf('--seed');
    return [...FLAGS.slice(0, at), ...FLAGS.slice(at + 2)];
  };

  it('--model-seed 7 is --seed 7; a --seed on the command line replaces the file’s seed as any flag does', async () => {
    const old = await resolved(FLAGS);
    const renamed = await resolved([...withoutSeed(), '--model-seed', '7']);
    expect(renamed.flags.plan).toEqual(old.flags.plan);
    expect(renamed.hash).toBe(old.hash);
    const overridden = await resolved(['--config', config('seed.yaml', YAML), '--seed', '9']);
    const direct = await resolved([...withoutSeed(), '--model-seed', '9']);
    expect(overridden.flags.plan).toEqual(direct.flags.plan);
  });

  it('both names on one command line: one line', async () => {
    await expect(resolved([...FLAGS, '--model-seed', '8'])).rejects.toThrow(
      /give --model-seed or its older name --seed, not both/,
    );
    await expect(resolved([...withoutSeed(), '--model-seed', 'x'])).rejects.toThrow(/--model-seed must be an integer/);
  });
});

describe('trial --config: bad input is one line, exit 1, nothing started', () => {
  async function trial(args: string[]): Promise<{ result: CliResult; out: string }> {
    const out = join(dir, `out-${Math.random().toString(16).slice(2)}`);
    return { result: await runCli(['trial', ...args, '--out', out], { cwd: dir }), out };
  }

  function expectOneLine({ result, out }: { result: CliResult; out: string }, expected: string | RegExp): void {
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').filter((l) => l !== '');
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]!.startsWith(PREFIX)).toBe(true);
    if (typeof expected === 'string') expect(lines[0]).toBe(`${PREFIX} ${expected}`);
    else expect(lines[0]).toMatch(expected);
    expect(existsSync(out), 'an output folder was created').toBe(false);
  }

  it('otel.enabled, otel.endpoint and otel.payloads are --otel and its flags (docs/traces.md); without them no traces', async () => {
    const on = await resolved([
      '--config',
      config('otel.yaml', `${YAML}otel:\n  enabled: true\n  endpoint: http://127.0.0.1:4318\n  payloads: on\n`),
    ]);
    expect(on.flags.otel).toEqual({
      endpoint: 'http://127.0.0.1:4318/v1/traces',
      serviceName: 'cuonztech-agent-harness',
      payloads: true,
    });
    expect(on.fromFile).toEqual(expect.arrayContaining(['otel.enabled', 'otel.endpoint', 'otel.payloads']));
    expect((await resolved(['--config', config('off.yaml', `${YAML}otel:\n  enabled: false\n`)])).flags.otel).toBeNull();
    expect((await resolved(['--config', config('none.yaml', YAML)])).flags.otel).toBeNull();
    // The endpoint without the switch is refused, naming the file's key and line.
    await expect(
      resolved(['--config', config('half.yaml', `${YAML}otel:\n  endpoint: http://127.0.0.1:4318\n`)]),
    ).rejects.toThrow(/otel\.endpoint: --otel-endpoint is for --otel: give --otel too/);
  });

  it('an unknown key, a wrong type, a value out of range: the key and its line', async () => {
    expectOneLine(
      await trial(['--config', config('unknown.yaml', YAML.replace('runs: 3', 'run: 3'))]),
      'unknown.yaml:20: run: unknown key (did you mean runs?); the keys are in docs/config.md',
    );
    expectOneLine(
      await trial(['--config', config('type.yaml', YAML.replace('seed: 7', 'seed: seven'))]),
      'type.yaml:21: seed: must be an integer from 0 to 4294967295',
    );
    expectOneLine(
      await trial(['--config', config('range.yaml', YAML.replace('concurrency: 2', 'concurrency: 100'))]),
      'range.yaml:22: concurrency: must be an integer from 1 to 64',
    );
  });

  it('a YAML syntax error and a JSON one: the line', async () => {
    expectOneLine(
      await trial(['--config', config('syntax.yaml', 'runs: 2\nscenarios: [F1\nout: x\n')]),
      /^\S+ error: syntax\.yaml:3: not valid YAML: /,
    );
    expectOneLine(
      await trial(['--config', config('syntax.json', '{\n  "runs": 2\n  "out": "x"\n}\n')]),
      /^\S+ error: syntax\.json:3: not valid JSON: /,
    );
  });

  it('a file that is no config is never quoted back (issue 41 §8): a key that does not look like one, a JSON text, say the line only', async () => {
    const SECRET = 'sk-live-SECRET-4242';
    // A shadow-like line ends with ":": YAML reads the whole line as a key.
    expectOneLine(
      await trial(['--config', config('shadow.yaml', `root:$y$j9T$${SECRET}:19000:0:99999:7::\n`)]),
      'shadow.yaml:1: the config: unknown key; the keys are in docs/config.md',
    );
    expectOneLine(
      await trial(['--config', config('env.json', `OPENAI_API_KEY=${SECRET}\n`)]),
      'env.json:1: not valid JSON: invalid JSON at line 1, column 1',
    );
    // V8 gives no position for this one: the line says that much and no more.
    expectOneLine(
      await trial(['--config', config('tail.json', `{"runs": 2, "x": ${SECRET}}\n`)]),
      /^\S+ error: tail\.json(:1)?: not valid JSON: invalid JSON( at line 1, column \d+)?$/,
    );
    // A key that looks like one is still named.
    expectOneLine(
      await trial(['--config', config('near.yaml', 'runz: 2\n')]),
      'near.yaml:1: runz: unknown key (did you mean runs?); the keys are in docs/config.md',
    );
  });

  it('an unreadable file: missing, a folder (a FIFO: test/integration/trial/config-fifo.test.ts)', async () => {
    expectOneLine(await trial(['--config', 'missing.yaml']), 'config file not found: missing.yaml');
    mkdirSync(join(dir, 'folder.yaml'), { recursive: true });
    expectOneLine(await trial(['--config', 'folder.yaml']), 'config file folder.yaml is a folder, not a regular file');
  });

  it("a rule between flags that the file breaks names the file's key and line; one the command line breaks does not", async () => {
    expectOneLine(
      await trial(['--config', config('rule.yaml', YAML.replace('scenarios: [F1, F2]', 'scenarios: [F1, F3]'))]),
      'rule.yaml:15: faults.retry_after: --retry-after is for --scenario F2 only',
    );
    expectOneLine(
      await trial(['--config', config('ok.yaml', YAML), '--concurrency', '0']),
      'flag --concurrency must be an integer from 1 to 64, got "0"',
    );
    expectOneLine(
      await trial(['--config', config('both.yaml', `${YAML}task_file: tasks.yaml\n`)]),
      'both.yaml:11: task: give --task/--follow-up or --task-file, not both',
    );
    // Two keys that stand for one flag: the tasks as a file and as a list.
    expectOneLine(
      await trial(['--config', config('lists.yaml', 'task_file: tasks.yaml\ntasks: [Book it.]\n')]),
      'lists.yaml:2: tasks: give task_file or tasks, not both',
    );
  });
});

describe('init', () => {
  it('writes the starter, which passes as a config; keeps an existing file unless --force; refuses a .json name', async () => {
    const cwd = mkdtempSync(join(dir, 'init-'));
    const first = await runCli(['init'], { cwd });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('wrote harness.yaml; run it with: cuonztech-agent-harness trial --config harness.yaml');
    const text = readFileSync(join(cwd, 'harness.yaml'), 'utf8');
    expect(text).toContain('# yaml-language-server: $schema=');
    const parsed = await resolved(['--config', join(cwd, 'harness.yaml')]);
    expect(parsed.flags.plan.agent).toMatchObject({ kind: 'command', gateway: { kind: 'stub' } });

    writeFileSync(join(cwd, 'harness.yaml'), 'mine: true\n');
    const again = await runCli(['init'], { cwd });
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(
      `${PREFIX} config file ${join(cwd, 'harness.yaml')} exists: not overwritten (give --force to replace it)`,
    );
    expect(readFileSync(join(cwd, 'harness.yaml'), 'utf8')).toBe('mine: true\n');
    const forced = await runCli(['init', '--force'], { cwd });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'harness.yaml'), 'utf8')).toBe(text);

    const json = await runCli(['init', 'harness.json'], { cwd });
    expect(json.code).toBe(1);
    expect(json.stderr).toContain('init writes YAML: name the file .yaml or .yml');
    expect(existsSync(join(cwd, 'harness.json'))).toBe(false);
  });

  it('never follows a symbolic link, with --force too, dangling or not', async () => {
    const cwd = mkdtempSync(join(dir, 'init-link-'));
    writeFileSync(join(cwd, 'target.txt'), 'keep\n');
    symlinkSync(join(cwd, 'target.txt'), join(cwd, 'linked.yaml'));
    symlinkSync(join(cwd, 'nowhere.txt'), join(cwd, 'dangling.yaml'));
    for (const args of [
      ['init', 'linked.yaml'],
      ['init', 'linked.yaml', '--force'],
      ['init', 'dangling.yaml', '--force'],
    ]) {
      const result = await runCli(args, { cwd });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/is a symbolic link: refused \(a link is never followed\)/);
    }
    expect(readFileSync(join(cwd, 'target.txt'), 'utf8')).toBe('keep\n');
    expect(existsSync(join(cwd, 'nowhere.txt'))).toBe(false);
    expect(lstatSync(join(cwd, 'linked.yaml')).isSymbolicLink()).toBe(true);
  });
});
