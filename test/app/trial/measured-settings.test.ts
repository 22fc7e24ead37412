/**
 * What a trial records as the settings that change what it measures (`provenance.settings`, hashed into
 * `configurationHash`): every flag that changes a run's conditions changes them, under its own name, so
 * `stats` can refuse to pool trials that measured different things and name the setting.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measuredSettings } from '../../../src/app/trial/measured-settings.js';
import { readArgv } from '../../../src/cli/argv.js';
import { PROXY_FLAGS } from '../../../src/cli/proxy-flags.js';
import { parseTrialFlags } from '../../../src/cli/trial-flags.js';
import { TRIAL_FLAGS } from '../../../src/cli/trial-flag-help.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const UPSTREAM = ['--upstream-command', 'node', '--upstream-arg', 'server.js'];
const MODEL = ['--model', 'm', '--task', 'Book.', ...UPSTREAM];
const PROGRAM = ['--agent-command', 'node', '--agent-arg', 'agent.mjs', ...UPSTREAM];

async function settings(argv: string[]): Promise<Record<string, string>> {
  const values = readArgv(argv, new Set([...PROXY_FLAGS, ...TRIAL_FLAGS]), new Set()).values;
  const flags = await parseTrialFlags(values, {}, '/tmp', new Date('2026-12-01T00:00:00Z'));
  return measuredSettings(flags.plan, sha256, null);
}

/** The settings that differ between two command lines. */
async function differing(a: string[], b: string[]): Promise<string[]> {
  const x = await settings(a);
  const y = await settings(b);
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => x[k] !== y[k]).sort();
}

describe('stats: the settings a trial records are every one that changes what it measures', () => {
  it.each([
    ['--hold', ['--scenario', 'F1'], ['--scenario', 'F1', '--hold', '5000'], ['F1 --hold']],
    ['--latency', ['--scenario', 'F1'], ['--scenario', 'F1', '--latency', '20:5'], ['F1 --latency']],
    ['--fault-tool', ['--scenario', 'F1'], ['--scenario', 'F1', '--fault-tool', 'create_*'], ['F1 --fault-tool']],
    ['--fault-on', ['--scenario', 'F1'], ['--scenario', 'F1', '--fault-on', '2'], ['F1 --fault-on']],
    ['--retry-after', ['--scenario', 'F2'], ['--scenario', 'F2', '--retry-after', '5'], ['F2 --retry-after']],
    [
      'chaos --error-rate',
      ['--mode', 'chaos', '--error-rate', '0.1'],
      ['--mode', 'chaos', '--error-rate', '0.3'],
      ['chaos --error-rate'],
    ],
    ['--write-tools', [], ['--write-tools', 'book_*'], ['--write-tools']],
    ['--read-tools', [], ['--read-tools', 'peek_*'], ['--read-tools']],
    ['--key-fields', [], ['--key-fields', 'request_id'], ['--key-fields']],
    ['--upstream-timeout', [], ['--upstream-timeout', '5'], ['--upstream-timeout']],
    ['--runs', [], ['--runs', '7'], ['--runs']],
  ])('%s', async (_name, a, b, names) => {
    expect(await differing([...MODEL, ...a], [...MODEL, ...b])).toEqual(names);
    expect(await differing([...PROGRAM, ...a], [...PROGRAM, ...b])).toEqual(names);
  });

  it('a replayed trial (--upstream-replay) differs from a live one by that setting: stats never pools a replay with live runs', async () => {
    const replay = ['--upstream-replay', 'cassette.jsonl'];
    expect(await differing(MODEL, ['--model', 'm', '--task', 'Book.', ...replay])).toEqual(['--upstream-replay']);
    expect(await differing(PROGRAM, ['--agent-command', 'node', '--agent-arg', 'agent.mjs', ...replay])).toEqual([
      '--upstream-replay',
    ]);
  });

  it('the built-in agent: model, endpoint, temperature, --is-error, retries, the honesty question, the prompts', async () => {
    expect(await differing(MODEL, [...MODEL, '--is-error', 'hidden'])).toEqual(['--is-error']);
    expect(await differing(MODEL, [...MODEL, '--temperature', '0.2'])).toEqual(['--temperature']);
    expect(await differing(MODEL, [...MODEL, '--model-retries', '0'])).toEqual(['--model-retries']);
    expect(await differing(MODEL, [...MODEL, '--honesty', 'off'])).toEqual(['--honesty-question']);
    expect(await differing(MODEL, [...MODEL, '--system-prompt', 'Be careful.'])).toEqual(['task default: system prompt']);
    expect(await differing(MODEL, [...MODEL, '--follow-up', 'Please try again.'])).toEqual(['task default: follow-ups']);
    expect(await differing(MODEL, [...MODEL, '--max-steps', '3'])).toEqual(['task default: --max-steps']);
    expect(await differing(MODEL, ['--model', 'other', ...MODEL.slice(2)])).toEqual(['--model']);
  });

  it('an agent program: its command line and the variables set for it (names in clear, values as a hash: they may be secrets)', async () => {
    expect(await differing(PROGRAM, [...PROGRAM, '--agent-arg', 'careful'])).toEqual(['--agent-arg']);
    expect(await differing(PROGRAM, ['--agent-command', 'python', ...PROGRAM.slice(2)])).toEqual(['--agent-command']);
    const careful = await settings([...PROGRAM, '--agent-env-var', 'AGENT_MODE=careful']);
    const naive = await settings([...PROGRAM, '--agent-env-var', 'AGENT_MODE=naive']);
    expect(careful['--agent-env-var']).toBe('AGENT_MODE');
    expect(careful['--agent-env-var AGENT_MODE']).toBe(`sha256:${sha256('careful').slice(0, 16)}`);
    expect(naive['--agent-env-var AGENT_MODE']).not.toBe(careful['--agent-env-var AGENT_MODE']);
    expect(JSON.stringify(careful)).not.toContain('careful');
    expect(await differing(PROGRAM, [...PROGRAM, '--agent-env-var', 'AGENT_MODE=naive'])).toEqual([
      '--agent-env-var',
      '--agent-env-var AGENT_MODE',
    ]);
  });

  it('an agent program behind the model gateway: the stub model script and the honesty question; --idempotent-hint for every agent', async () => {
    const stub = (name: string) => ['--stub-model', join(import.meta.dirname, '../../../examples/stub-models', `${name}.yaml`)];
    expect(await differing([...PROGRAM, ...stub('booking-careful')], [...PROGRAM, ...stub('booking-naive')])).toEqual([
      '--stub-model',
    ]);
    expect(
      await differing([...PROGRAM, ...stub('booking-careful')], [...PROGRAM, ...stub('booking-careful'), '--honesty', 'off']),
    ).toEqual(['--honesty-question']);
    expect(await differing(PROGRAM, [...PROGRAM, ...stub('booking-careful')])).toEqual(['--honesty-question', '--stub-model']);
    expect(await differing(MODEL, [...MODEL, '--idempotent-hint', 'ignore'])).toEqual(['--idempotent-hint']);
  });

  it('the model-side fault and which request it hits, recorded only when given (earlier trials still pool)', async () => {
    const stub = ['--stub-model', join(import.meta.dirname, '../../../examples/stub-models/booking-careful.yaml')];
    expect(await differing([...PROGRAM, ...stub], [...PROGRAM, ...stub, '--model-fault', '500'])).toEqual([
      '--model-fault',
      '--model-fault-on',
    ]);
    expect(await differing([...MODEL, '--model-fault', '500'], [...MODEL, '--model-fault', '429'])).toEqual(['--model-fault']);
    expect(await differing([...MODEL, '--model-fault', '429'], [...MODEL, '--model-fault', '429:5'])).toEqual(['--model-fault']);
    expect(
      await differing([...MODEL, '--model-fault', 'cut'], [...MODEL, '--model-fault', 'cut', '--model-fault-on', '2']),
    ).toEqual(['--model-fault-on']);
    expect(await settings([...MODEL, '--model-fault', 'timeout'])).toMatchObject({
      '--model-fault': 'timeout:60000',
      '--model-fault-on': 'after-write',
    });
    expect(Object.keys(await settings(MODEL))).not.toContain('--model-fault');
  });

  it('an agent program in forward mode: the model and the endpoint it was served by, never the key', async () => {
    const forward = (model: string, url: string) => [...PROGRAM, '--model', model, '--base-url', url];
    const a = forward('gpt-a', 'https://api.example.com/v1');
    expect(await differing(a, forward('gpt-b', 'https://api.example.com/v1'))).toEqual(['--model']);
    expect(await differing(a, forward('gpt-a', 'https://other.example.com/v1'))).toEqual(['--base-url']);
    expect(await differing(a, forward('gpt-a', 'https://api.example.com/v2'))).toEqual(['--base-url']);
    expect(await differing(a, [...a, '--honesty', 'off'])).toEqual(['--honesty-question']);
    expect(await differing(PROGRAM, a)).toEqual(['--base-url', '--honesty-question', '--model']);
    // A key some gateways take in the URL is redacted (docs/model-gateway.md).
    const keyed = await settings(forward('gpt-a', 'https://api.example.com/v1?key=sk-1'));
    expect(JSON.stringify(keyed)).not.toContain('sk-1');
    expect(keyed['--base-url']).toBe('https://api.example.com/v1?key=***');
  });

  it("not the upstream's command line, which differs between the machines of one CI matrix", async () => {
    expect(await differing(MODEL, [...MODEL.slice(0, 4), '--upstream-command', 'python', '--upstream-arg', 's.py'])).toEqual([]);
  });
});
