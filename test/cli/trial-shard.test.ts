/** `trial --shard i/n`: the flag, and the deterministic share of the runs. */
import { describe, expect, it } from 'vitest';
import { planRuns, shardRuns, type TrialPlan } from '../../src/app/trial/trial-plan.js';
import { parseShard } from '../../src/cli/trial-flags.js';

const plan = (runs: number): TrialPlan => ({
  agent: {
    kind: 'model',
    model: 'm',
    baseUrl: 'http://127.0.0.1:1/v1',
    temperature: undefined,
    seed: 100,
    isError: 'visible',
    retries: 0,
    backoffMs: 1,
    maxRetryAfterMs: 1,
  },
  scenarios: [{ mode: 'fixed', id: 'F1' } as never, { mode: 'fixed', id: 'F3' } as never],
  tasks: [{ id: 'default', systemPrompt: undefined, task: 't', followUps: [], maxSteps: 3 }],
  runs,
  concurrency: 1,
  resetCommand: undefined,
  keyFields: [],
  classification: {},
  callTimeoutMs: 1000,
  honestyQuestion: undefined,
  patch: undefined,
});

describe('trial --shard i/n', () => {
  it('parses i/n and refuses 0/3, 4/3, x, more shards than runs — one line each', () => {
    expect(parseShard(undefined, 10)).toBeUndefined();
    expect(parseShard('2/3', 10)).toEqual({ index: 2, count: 3 });
    expect(parseShard(' 1 / 1 ', 1)).toEqual({ index: 1, count: 1 });
    expect(() => parseShard('0/3', 10)).toThrow(/flag --shard 0\/3: i must be 1 … n/);
    expect(() => parseShard('4/3', 10)).toThrow(/flag --shard 4\/3: i must be 1 … n/);
    expect(() => parseShard('1/0', 10)).toThrow(/i must be 1 … n/);
    expect(() => parseShard('x', 10)).toThrow(/flag --shard takes i\/n .* got "x"/);
    expect(() => parseShard('1/3/4', 10)).toThrow(/takes i\/n/);
    expect(() => parseShard('1/7', 6)).toThrow(/the trial has 6 runs, so at most 6 shards/);
  });

  it('the shards partition the whole trial: every run exactly once, with the ids and seeds of the unsharded trial', () => {
    for (const count of [1, 2, 3, 5, 10]) {
      const whole = planRuns(plan(5));
      const parts = Array.from({ length: count }, (_, i) => shardRuns(whole, { index: i + 1, count }));
      const union = parts
        .flat()
        .map((r) => `${r.id}:${r.seed}`)
        .sort();
      expect(union).toEqual(whole.map((r) => `${r.id}:${r.seed}`).sort());
      for (const part of parts) expect(part.length).toBeGreaterThanOrEqual(Math.floor(whole.length / count));
    }
    const first = shardRuns(planRuns(plan(3)), { index: 1, count: 2 }).map((r) => r.id);
    expect(first).toEqual(['F1-001', 'F1-003', 'F3-002']);
    expect(shardRuns(planRuns(plan(3)), undefined)).toHaveLength(6);
  });
});
