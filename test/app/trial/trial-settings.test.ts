/**
 * The settings hash of a trial (`summary.json` `provenance.config.settingsHash`): a `--model-replay`
 * recording is named by its file in it, never hashed by its exchanges — they are the recording, not a
 * setting, and a long recording would be hashed whole at every trial's start.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RecordedModelExchange } from '../../../src/app/trial/replay-chat-model.js';
import { modelReplayOf, type TrialAgent, type TrialPlan } from '../../../src/app/trial/trial-plan.js';
import { resolvedSettings, settingsHash, type UpstreamSettings } from '../../../src/app/trial/trial-settings.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const UPSTREAM: UpstreamSettings = { command: 'node', args: [], cwd: null, env: {}, url: null, headers: [], headerEnv: [] };

const exchange = (text: string) => ({ request: { messages: [] }, answer: { text } }) as unknown as RecordedModelExchange;

function plan(agent: TrialAgent): TrialPlan {
  return {
    agent,
    honestyQuestion: undefined,
    patch: undefined,
    scenarios: [{ mode: 'none' }],
    tasks: [{ id: 't', task: 'Book.', followUps: [] }],
    runs: 1,
    concurrency: 1,
    resetCommand: undefined,
    keyFields: ['idempotency_key'],
    classification: { writeTools: null, readTools: [] },
    callTimeoutMs: 60_000,
  } as unknown as TrialPlan;
}

const loop = (file: string, texts: string[]): TrialAgent => ({
  kind: 'model',
  model: 'm',
  baseUrl: 'http://127.0.0.1/replayed',
  temperature: undefined,
  seed: undefined,
  isError: 'visible',
  retries: 3,
  backoffMs: 500,
  maxRetryAfterMs: 120_000,
  replay: { file, exchanges: texts.map(exchange) },
});

const program = (file: string, texts: string[]): TrialAgent => ({
  kind: 'command',
  command: 'node',
  args: ['agent.mjs'],
  transport: 'stdio',
  timeoutMs: 300_000,
  seed: undefined,
  env: {},
  gateway: { kind: 'replay', file, exchanges: texts.map(exchange), model: 'stub' },
});

describe('the settings hash of a --model-replay trial', () => {
  it.each([
    ['the built-in loop', loop],
    ['an agent program through its gateway', program],
  ])('%s: the recording is its file name; its exchanges are not hashed', (_name, agent) => {
    const a = plan(agent('cassette.jsonl', ['one', 'two']));
    expect(modelReplayOf(a)?.exchanges).toHaveLength(2);
    expect(JSON.stringify(resolvedSettings(a, UPSTREAM))).not.toContain('"two"');
    expect(settingsHash(a, UPSTREAM, sha256)).toBe(settingsHash(plan(agent('cassette.jsonl', ['other'])), UPSTREAM, sha256));
    expect(settingsHash(a, UPSTREAM, sha256)).not.toBe(settingsHash(plan(agent('b.jsonl', ['one', 'two'])), UPSTREAM, sha256));
  });
});
