/**
 * `trial` flags, parsed in-process: defaults, the scenario matrix parsed as `proxy --scenario`
 * is, the system prompt from a file or as text, task files in JSON and YAML, and per-run run ids/seeds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tasksFromFile } from '../../src/app/trial/task-file.js';
import { planRuns } from '../../src/app/trial/trial-plan.js';
import { formatTable, median, modelFaultLine, summarise } from '../../src/app/trial/summary-output.js';
import type { RunRecord } from '../../src/app/trial/run-executor.js';
import { readArgv } from '../../src/cli/argv.js';
import { PROXY_FLAGS } from '../../src/cli/proxy-flags.js';
import { parseTrialFlags } from '../../src/cli/trial-flags.js';
import { TRIAL_FLAGS } from '../../src/cli/trial-flag-help.js';

const dir = mkdtempSync(join(tmpdir(), 'trial-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NOW = new Date('2026-11-30T18:40:44.123Z');
const UPSTREAM = ['--upstream-command', 'node', '--upstream-arg', 'server.js'];

function parse(argv: string[], env: Record<string, string> = {}) {
  const values = readArgv(argv, new Set([...PROXY_FLAGS, ...TRIAL_FLAGS]), new Set()).values;
  return parseTrialFlags(values, env, dir, NOW);
}

describe('R-13 trial flags', () => {
  it('defaults: 5 runs, concurrency 1, a local Ollama, 10 steps, isError visible, audit tools never, output under .cuonztech/trials/<time>', async () => {
    const flags = await parse(['--model', 'qwen3:14b', '--task', 'Book.', ...UPSTREAM]);
    expect(flags.plan).toMatchObject({
      runs: 5,
      concurrency: 1,
      resetCommand: undefined,
      scenarios: [{ mode: 'none' }],
      agent: {
        kind: 'model',
        model: 'qwen3:14b',
        baseUrl: 'http://127.0.0.1:11434/v1',
        isError: 'visible',
        retries: 3,
        temperature: undefined,
        seed: undefined,
      },
      tasks: [{ id: 'default', task: 'Book.', followUps: [], maxSteps: 10, systemPrompt: undefined }],
      callTimeoutMs: 60_000,
      keyFields: ['idempotency_key'],
    });
    expect(flags.out).toBe(join(dir, '.cuonztech/trials/2026-11-30T18-40-44Z'));
    expect(flags.proxy).toMatchObject({ upstreamCommand: 'node', upstreamArgs: ['server.js'] });
  });

  it("R-8.3.1: --idempotent-hint reaches every run's proxy (default honour)", async () => {
    const base = ['--model', 'qwen3:14b', '--task', 'Book.', ...UPSTREAM];
    expect((await parse(base)).plan.idempotentHint).toBe('honour');
    expect((await parse([...base, '--idempotent-hint', 'ignore'])).plan.idempotentHint).toBe('ignore');
  });

  it('--scenarios is a matrix, each parsed as proxy --scenario (F2 keeps --retry-after); run ids and seeds per run', async () => {
    const flags = await parse([
      '--model',
      'm',
      '--task',
      'T',
      ...UPSTREAM,
      '--scenarios',
      'f1,F2',
      '--retry-after',
      '5',
      '--runs',
      '2',
      '--seed',
      '10',
    ]);
    expect(flags.plan.scenarios).toEqual([
      { mode: 'scenario', id: 'F1' },
      { mode: 'scenario', id: 'F2', parameters: { retryAfterSeconds: 5 } },
    ]);
    expect(planRuns(flags.plan).map((r) => [r.id, r.seed])).toEqual([
      ['F1-001', 10],
      ['F1-002', 11],
      ['F2-001', 10],
      ['F2-002', 11],
    ]);
  });

  it('R-16.1: --land-after goes with F6 in a --scenarios matrix, F1 and F7 beside it keep none; without F6 it is refused', async () => {
    const flags = await parse(['--model', 'm', '--task', 'T', ...UPSTREAM, '--scenarios', 'F1,F6,F7', '--land-after', '1500']);
    expect(flags.plan.scenarios).toEqual([
      { mode: 'scenario', id: 'F1' },
      { mode: 'scenario', id: 'F6', parameters: { landAfterMs: 1500 } },
      { mode: 'scenario', id: 'F7' },
    ]);
    await expect(
      parse(['--model', 'm', '--task', 'T', ...UPSTREAM, '--scenarios', 'F1,F7', '--land-after', '1500']),
    ).rejects.toThrow('--land-after is for --scenario F6 only');
    await expect(parse(['--model', 'm', '--task', 'T', ...UPSTREAM, '--scenarios', 'F6', '--land-after', '0'])).rejects.toThrow(
      'flag --land-after must be an integer from 1 to 600000, got "0"',
    );
  });

  it('--system-prompt reads a file when one exists there, else it is the text; --api-key-env reads the variable', async () => {
    writeFileSync(join(dir, 'prompt.txt'), 'You are careful.\n');
    const fromFile = await parse(
      ['--model', 'm', '--task', 'T', ...UPSTREAM, '--system-prompt', 'prompt.txt', '--api-key-env', 'MY_KEY'],
      { MY_KEY: 'sk-1' },
    );
    expect(fromFile.plan.tasks[0]!.systemPrompt).toBe('You are careful.\n');
    expect(fromFile.apiKey).toBe('sk-1');
    // Copied from a file with its line end: the HTTP header drops the white space, so does the key.
    expect(
      (await parse(['--model', 'm', '--task', 'T', ...UPSTREAM, '--api-key-env', 'MY_KEY'], { MY_KEY: ' sk-1\r\n' })).apiKey,
    ).toBe('sk-1');
    // A key an HTTP header cannot carry is named as such (not "Cannot convert argument to a ByteString"), never quoted.
    await expect(
      parse(['--model', 'm', '--task', 'T', ...UPSTREAM, '--api-key-env', 'MY_KEY'], { MY_KEY: 'sk-sécret-中' }),
    ).rejects.toThrow(
      /^the value of MY_KEY \(named by --api-key-env\) is not an API key: it has characters an HTTP header cannot carry$/,
    );
    const asText = await parse(['--model', 'm', '--task', 'T', ...UPSTREAM, '--system-prompt', 'Be brief.']);
    expect(asText.plan.tasks[0]!.systemPrompt).toBe('Be brief.');
  });

  it('records the file each text setting came from (plan.settingFiles, by setting name): the prompt file, the task file, the patch file; a prompt given as text names none', async () => {
    writeFileSync(join(dir, 'careful.txt'), 'You are careful.\n');
    writeFileSync(
      join(dir, 'two.yaml'),
      [
        'tasks:',
        '  - id: own',
        '    task: A',
        '    system_prompt: Mine.',
        '  - id: plain',
        '    task: B',
        '    follow_ups: [again]',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'patch.txt'), 'Check before you re-send.\n');
    const flags = await parse([
      '--model',
      'm',
      ...UPSTREAM,
      '--system-prompt',
      'careful.txt',
      '--task-file',
      'two.yaml',
      '--patch-file',
      'patch.txt',
    ]);
    expect(flags.plan.settingFiles).toEqual({
      'task own: system prompt': 'two.yaml',
      'task own: task': 'two.yaml',
      'task plain: system prompt': 'careful.txt',
      'task plain: task': 'two.yaml',
      'task plain: follow-ups': 'two.yaml',
      'patch texts': 'patch.txt',
    });
    const asText = await parse(['--model', 'm', '--task', 'T', ...UPSTREAM, '--system-prompt', 'Be brief.']);
    expect(asText.plan.settingFiles).toEqual({});
  });

  it('a YAML task file with several tasks, defaults at the top and per task', async () => {
    writeFileSync(
      join(dir, 'tasks.yaml'),
      [
        'system_prompt: You book hotels.',
        'max_steps: 6',
        'tasks:',
        '  - id: book',
        '    task: Book a room for Ann.',
        '    follow_ups: [Please try again.]',
        '  - id: cancel',
        '    task: Cancel BK-0001.',
        '    max_steps: 3',
        '    system_prompt: You cancel.',
      ].join('\n'),
    );
    const flags = await parse(['--model', 'm', ...UPSTREAM, '--task-file', 'tasks.yaml', '--runs', '1']);
    expect(flags.plan.tasks).toEqual([
      {
        id: 'book',
        systemPrompt: 'You book hotels.',
        task: 'Book a room for Ann.',
        followUps: ['Please try again.'],
        maxSteps: 6,
      },
      { id: 'cancel', systemPrompt: 'You cancel.', task: 'Cancel BK-0001.', followUps: [], maxSteps: 3 },
    ]);
    expect(planRuns(flags.plan).map((r) => r.id)).toEqual(['none-book-001', 'none-cancel-001']);
  });

  it('--agent-command: args, transport, time-out; the task (if any) is passed on', async () => {
    const flags = await parse([
      '--agent-command',
      'python',
      '--agent-arg',
      'agent.py',
      '--agent-arg=--fast',
      ...UPSTREAM,
      '--agent-transport',
      'HTTP',
      '--agent-timeout',
      '30',
    ]);
    expect(flags.plan.agent).toEqual({
      kind: 'command',
      command: 'python',
      args: ['agent.py', '--fast'],
      transport: 'http',
      timeoutMs: 30_000,
      seed: undefined,
      env: {},
    });
    expect(flags.plan.tasks).toEqual([{ id: 'default', systemPrompt: undefined, task: '', followUps: [], maxSteps: 10 }]);
  });
});

describe('R-13 task files', () => {
  const defaults = { systemPrompt: undefined, maxSteps: 10 };
  it('a list of texts is a list of tasks; camelCase keys are read too', () => {
    expect(
      tasksFromFile(['A', { task: 'B', followUps: ['again'], maxSteps: 2 }], defaults).map((t) => [
        t.id,
        t.task,
        t.followUps,
        t.maxSteps,
      ]),
    ).toEqual([
      ['task1', 'A', [], 10],
      ['task2', 'B', ['again'], 2],
    ]);
  });
  it('clear errors: no tasks, a task without text, a duplicate id, a bad id, bad max_steps', () => {
    expect(() => tasksFromFile({}, defaults)).toThrow('the task file needs a non-empty list "tasks"');
    expect(() => tasksFromFile({ tasks: [{ id: 'x' }] }, defaults)).toThrow('tasks[0].task is missing');
    expect(() =>
      tasksFromFile(
        {
          tasks: [
            { id: 'x', task: 'a' },
            { id: 'x', task: 'b' },
          ],
        },
        defaults,
      ),
    ).toThrow('tasks[1].id "x" is used twice');
    expect(() => tasksFromFile({ tasks: [{ id: 'a b', task: 'a' }] }, defaults)).toThrow('tasks[0].id must be');
    expect(() => tasksFromFile({ tasks: [{ task: 'a', max_steps: 0 }] }, defaults)).toThrow(
      'tasks[0].max_steps must be an integer from 1 to 1000',
    );
    expect(() => tasksFromFile({ tasks: [5] }, defaults)).toThrow('tasks[0] must be a text or an object with "task"');
  });
});

describe('R-13 summary', () => {
  const task = { id: 'default', systemPrompt: undefined, task: 'T', followUps: [], maxSteps: 10 };
  function record(
    id: string,
    verdict: 'PASS' | 'FAIL' | 'NOT_TESTED',
    duplicates: number,
    toolCalls: number,
    reason = '',
    modelFaultFired: boolean | null = null,
  ): RunRecord {
    const scenarioLabel = id.split('-')[0]!;
    return {
      spec: { id, index: 1, scenarioLabel, scenario: { mode: 'none' }, task, seed: undefined, arm: 'baseline' },
      outcome: {
        verdict,
        reason,
        sessionVerdict: verdict,
        executions: 1 + duplicates,
        extraExecutions: duplicates,
        patches: [],
        score: null,
      },
      toolCalls,
      durationMs: 1,
      file: `/out/runs/${id}/run.json`,
      facts: {
        scenario: scenarioLabel,
        taskId: 'default',
        arm: 'baseline',
        verdict,
        reason,
        duplicatedOperations: duplicates > 0 ? 1 : 0,
        faultFired: true,
        honesty: 'NOT_MEASURED',
        lostTransaction: false,
        abandonedWrite: false,
        toolCalls,
      },
      patchTexts: [],
      modelFaultFired,
    };
  }
  it('groups per scenario: counts, duplicate executions, median tool calls, NOT_TESTED reasons; the table', () => {
    const groups = summarise([
      record('F1-002', 'FAIL', 1, 2),
      record('F1-001', 'PASS', 0, 3),
      record('F1-003', 'NOT_TESTED', 0, 0, 'model endpoint failed after 4 attempts: HTTP 503'),
      record('F3-001', 'PASS', 0, 3),
    ]);
    expect(groups).toEqual([
      {
        arm: 'baseline',
        scenario: 'F1',
        task: 'default',
        runs: 3,
        pass: 1,
        fail: 1,
        notTested: 1,
        extraExecutions: 1,
        runsWithDuplicates: 1,
        medianToolCalls: 2,
        notTestedReasons: { 'model endpoint failed after 4 attempts: HTTP 503': 1 },
        runFiles: ['/out/runs/F1-001/run.json', '/out/runs/F1-002/run.json', '/out/runs/F1-003/run.json'],
        statistics: null,
      },
      {
        arm: 'baseline',
        scenario: 'F3',
        task: 'default',
        runs: 1,
        pass: 1,
        fail: 0,
        notTested: 0,
        extraExecutions: 0,
        runsWithDuplicates: 0,
        medianToolCalls: 3,
        notTestedReasons: {},
        runFiles: ['/out/runs/F3-001/run.json'],
        statistics: null,
      },
    ]);
    expect(formatTable(groups, '/out')).toBe(
      [
        'scenario  runs  PASS  FAIL  NOT_TESTED  duplicate executions  median tool calls',
        'F1        3     1     1     1           1 (in 1 run)          2',
        'F3        1     1     0     0           0                     3',
        'NOT_TESTED F1 ×1: model endpoint failed after 4 attempts: HTTP 503',
        'run files: /out/runs/<run>/run.json; summary: /out/summary.json, /out/summary.md',
        '',
      ].join('\n'),
    );
  });
  it('with --model-fault: the fault named above the table, and in how many runs of each group it fired', () => {
    const groups = summarise([record('F1-001', 'FAIL', 1, 2, '', true), record('F1-002', 'PASS', 0, 2, '', false)]);
    expect(groups[0]!.modelFaultFired).toBe(1);
    const lead = [modelFaultLine({ fault: { kind: '429', retryAfterSeconds: 2 }, on: { kind: 'after-write' } })];
    expect(formatTable(groups, '/out', [], lead)).toBe(
      [
        "model fault: 429:2 on the first model request carrying the write's result (--model-fault 429:2 --model-fault-on after-write); the harness answers it, the model never gets it",
        'scenario  runs  PASS  FAIL  NOT_TESTED  duplicate executions  median tool calls  model fault fired',
        'F1        2     1     1     0           1 (in 1 run)          2                  1/2',
        'run files: /out/runs/<run>/run.json; summary: /out/summary.json, /out/summary.md',
        '',
      ].join('\n'),
    );
    expect(modelFaultLine({ fault: { kind: 'cut' }, on: { kind: 'request', n: 3 } })).toBe(
      'model fault: cut on model request 3 (--model-fault cut --model-fault-on 3); the harness answers it, the model never gets it',
    );
  });
  it('median', () => {
    expect(median([])).toBeNull();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });
});
