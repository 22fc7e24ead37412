import { describe, expect, it } from 'vitest';
import {
  ModelFaultTrigger,
  modelFaultKindLabel,
  parseModelFaultKind,
  parseModelFaultOn,
  type ModelRequestMessage,
} from '../../../src/domain/faults/model-fault.js';

const writes = { matches: (tool: string) => tool === 'create_booking', on: 1 };
const user: ModelRequestMessage = { role: 'user' };
const asks = (id: string, name: string): ModelRequestMessage => ({ role: 'assistant', toolCalls: [{ id, name }] });
const result = (id: string): ModelRequestMessage => ({ role: 'tool', toolCallId: id });

describe('model-side faults: the flag values', () => {
  it('reads each kind with its default and its own value', () => {
    expect(parseModelFaultKind('500')).toEqual({ kind: '500' });
    expect(parseModelFaultKind('cut')).toEqual({ kind: 'cut' });
    expect(parseModelFaultKind('429')).toEqual({ kind: '429', retryAfterSeconds: 1 });
    expect(parseModelFaultKind('429:7')).toEqual({ kind: '429', retryAfterSeconds: 7 });
    expect(parseModelFaultKind('timeout')).toEqual({ kind: 'timeout', ms: 60_000 });
    expect(parseModelFaultKind('timeout:250')).toEqual({ kind: 'timeout', ms: 250 });
    expect(parseModelFaultOn('after-write')).toEqual({ kind: 'after-write' });
    expect(parseModelFaultOn('3')).toEqual({ kind: 'request', n: 3 });
    expect(modelFaultKindLabel({ kind: 'timeout', ms: 250 })).toBe('timeout:250');
  });

  it.each(['503', '500:2', 'cut:1', '429:-1', '429:x', 'timeout:0', 'timeout:1.5', '429:1:2', ''])(
    'refuses --model-fault %j with one line naming the flag',
    (value) => {
      const parsed = parseModelFaultKind(value);
      expect(parsed).toHaveProperty('error');
      expect((parsed as { error: string }).error).toMatch(/^--model-fault "/);
      expect((parsed as { error: string }).error).not.toContain('\n');
    },
  );

  it.each(['0', '-1', 'first', '1.5', ''])('refuses --model-fault-on %j', (value) => {
    expect((parseModelFaultOn(value) as { error: string }).error).toMatch(/^--model-fault-on .*after-write/);
  });
});

describe('model-side faults: which request is faulted', () => {
  it('after-write: the first request that carries the result of the write, once', () => {
    const trigger = new ModelFaultTrigger({ fault: { kind: '500' }, on: { kind: 'after-write' } }, writes);
    expect(trigger.decide([user])).toBeNull();
    // A read's result is not the write's.
    expect(trigger.decide([user, asks('c1', 'search_bookings'), result('c1')])).toBeNull();
    const conversation = [user, asks('c1', 'search_bookings'), result('c1'), asks('c2', 'create_booking'), result('c2')];
    expect(trigger.decide(conversation)).toEqual({ kind: '500' });
    expect(trigger.faultedRequest).toBe(3);
    // The client's retry of the same request is answered as usual.
    expect(trigger.decide(conversation)).toBeNull();
    expect(trigger.record()).toEqual({ kind: '500', on: 'after-write', triggered: true, request: 3 });
  });

  it("after-write waits for the result of the scenario's aimed write (its on-th)", () => {
    const trigger = new ModelFaultTrigger({ fault: { kind: 'cut' }, on: { kind: 'after-write' } }, { ...writes, on: 2 });
    expect(trigger.decide([user, asks('c1', 'create_booking'), result('c1')])).toBeNull();
    // A tool call not yet answered does not count.
    expect(trigger.decide([user, asks('c1', 'create_booking'), result('c1'), asks('c2', 'create_booking')])).toBeNull();
    expect(
      trigger.decide([user, asks('c1', 'create_booking'), result('c1'), asks('c2', 'create_booking'), result('c2')]),
    ).toEqual({ kind: 'cut' });
  });

  it('N: the N-th model request of the run, whatever it carries', () => {
    const trigger = new ModelFaultTrigger(
      { fault: { kind: '429', retryAfterSeconds: 2 }, on: { kind: 'request', n: 2 } },
      writes,
    );
    expect(trigger.decide([user])).toBeNull();
    expect(trigger.decide([user])).toEqual({ kind: '429', retryAfterSeconds: 2 });
    expect(trigger.decide([user])).toBeNull();
  });

  it('a run whose trigger never came records it as not triggered', () => {
    const trigger = new ModelFaultTrigger({ fault: { kind: 'timeout', ms: 10 }, on: { kind: 'after-write' } }, writes);
    trigger.decide([user]);
    expect(trigger.record()).toEqual({ kind: 'timeout:10', on: 'after-write', triggered: false, request: null });
  });
});
