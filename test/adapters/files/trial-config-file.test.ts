/**
 * The config file of `trial` (docs/config.md), read and checked: every mistake is one line naming the
 * file, the key and the key's line, in YAML and in JSON; the keys stand for every trial flag; the starter
 * `init` writes passes the schema.
 */
import { describe, expect, it } from 'vitest';
import { parseTrialConfig } from '../../../src/adapters/files/config-file.js';
import { EFFECTS_FLAGS } from '../../../src/cli/effects-flags.js';
import { FLAG_SPELLINGS, TRIAL_CONFIG, TRIAL_CONFIG_KEYS } from '../../../src/cli/trial-config-keys.js';
import { starterConfig } from '../../../src/app/init/starter-config.js';
import { PROXY_FLAGS } from '../../../src/cli/proxy-flags.js';
import { OTEL_FLAGS } from '../../../src/cli/otel-flags.js';
import { TRIAL_FLAGS, TRIAL_REFUSED_FLAGS } from '../../../src/cli/trial-flag-help.js';

const yaml = (text: string) => parseTrialConfig(text, 'harness.yaml', false, TRIAL_CONFIG);
const json = (text: string) => parseTrialConfig(text, 'harness.json', true, TRIAL_CONFIG);
const settingOf = (text: string, key: string) => yaml(text).settings.find((s) => s.key === key)?.values;

describe('trial config file: bad input is one line naming the key and its line', () => {
  it('an unknown key: its line, in a group and at the top, with the key it was probably meant to be', () => {
    expect(() => yaml('runs: 2\nupstream:\n  command: node\n  comand: node\n')).toThrow(
      'harness.yaml:4: upstream.comand: unknown key (did you mean command?); the keys are in docs/config.md',
    );
    expect(() => yaml('# comment\nrunz: 2\n')).toThrow(/^harness\.yaml:2: runz: unknown key \(did you mean runs\?\)/);
    expect(() => yaml('followUps: [again]\n')).toThrow(/^harness\.yaml:1: followUps: unknown key \(did you mean follow_ups\?\)/);
    expect(() => json('{\n  "runs": 2,\n  "upstream": {\n    "command": "node",\n    "cwdir": "/"\n  }\n}\n')).toThrow(
      /^harness\.json:5: upstream\.cwdir: unknown key/,
    );
    expect(() => yaml('nothing_like_it: 1\n')).toThrow(
      'harness.yaml:1: nothing_like_it: unknown key; the keys are in docs/config.md',
    );
  });

  it('a wrong type: a text for a number, a map for a list, a list for a text', () => {
    expect(() => yaml('upstream:\n  command: node\nruns: many\n')).toThrow(
      'harness.yaml:3: runs: must be an integer from 1 to 100000',
    );
    expect(() => yaml('agent:\n  args: { a: 1 }\n')).toThrow('harness.yaml:2: agent.args: must be a list of texts');
    expect(() => json('{\n  "task": ["a", "b"]\n}')).toThrow('harness.json:2: task: must be a text');
    expect(() => yaml('honesty: maybe\n')).toThrow('harness.yaml:1: honesty: must be true or false (or on / off)');
    // A list item: the item's own line.
    expect(() => yaml('scenarios:\n  - F1\n  - F9\n')).toThrow(
      /^harness\.yaml:3: scenarios\[1\]: must be one of F1, F2, F3, F4, F5, F6, F7/,
    );
  });

  it('a value out of range: runs 0, concurrency 65, temperature 3, a fractional retry count', () => {
    expect(() => yaml('runs: 0\n')).toThrow('harness.yaml:1: runs: must be an integer from 1 to 100000');
    expect(() => json('{\n\n  "concurrency": 65\n}')).toThrow('harness.json:3: concurrency: must be an integer from 1 to 64');
    expect(() => yaml('model:\n  temperature: 3\n')).toThrow('harness.yaml:2: model.temperature: must be a number from 0 to 2');
    expect(() => yaml('model:\n  retries: 1.5\n')).toThrow('harness.yaml:2: model.retries: must be an integer from 0 to 10');
  });

  it('a syntax error: YAML and JSON, with the line; a key given twice is named', () => {
    expect(() => yaml('runs: 2\nscenarios: [F1, F2\nout: x\n')).toThrow(/^harness\.yaml:3: not valid YAML: /);
    expect(() => yaml('task: "unclosed\n')).toThrow(/^harness\.yaml:2: not valid YAML: Missing closing "quote/);
    expect(() => json('{\n  "runs": 2,\n  "out": "x",\n}\n')).toThrow(/^harness\.json:4: not valid JSON: /);
    expect(() => json('{\n  "runs": 2,\n  "runs": 3\n}\n')).toThrow(
      'harness.json:3: runs: given twice (which value would count?)',
    );
    expect(() => yaml('runs: 2\nout: a\nruns: 3\n')).toThrow('harness.yaml:3: runs: given twice (which value would count?)');
  });

  it('a file that is not a map of keys, an empty file', () => {
    for (const text of ['- runs\n', '42\n', ''])
      expect(() => yaml(text)).toThrow(
        'harness.yaml: the config must be a map of keys such as upstream, agent, model, runs (docs/config.md)',
      );
  });

  it('__proto__ and constructor are unknown keys, never set on an object', () => {
    expect(() => json('{"__proto__": {"runs": 1}}')).toThrow(/^harness\.json:1: __proto__: unknown key/);
    expect(() => yaml('upstream:\n  constructor: x\n')).toThrow(/^harness\.yaml:2: upstream\.constructor: unknown key/);
    expect(({} as Record<string, unknown>)['runs']).toBeUndefined();
  });
});

describe('trial config file: keys and flags', () => {
  it('every trial flag has a key (or is another spelling of one); every key names a trial flag', () => {
    const trialFlags = [...new Set([...TRIAL_FLAGS, ...PROXY_FLAGS, ...EFFECTS_FLAGS, ...OTEL_FLAGS])].filter(
      (flag) => !TRIAL_REFUSED_FLAGS.has(flag) && flag !== 'config',
    );
    const keyed = new Set([...TRIAL_CONFIG_KEYS.map((k) => k.flag), ...FLAG_SPELLINGS.keys()]);
    expect(trialFlags.filter((flag) => !keyed.has(flag))).toEqual([]);
    expect([...keyed].filter((flag) => !trialFlags.includes(flag))).toEqual([]);
  });

  it('values become the flag values the command line would give', () => {
    const text = [
      'upstream:',
      '  command: node',
      '  args: [server.js, "--a,b"]',
      '  env: { PORT: 3000, DEBUG: true, NAME: x=y }',
      'scenarios: [F1, F3]',
      'honesty: false',
      'model:',
      '  temperature: 0.5',
      'faults:',
      '  model: 429',
      '  model_on: after-write',
      '  tools: create_*',
      'tools:',
      '  write: [create_*, book_*]',
      'patch: [GHOST_WRITE, IDEMPOTENCY]',
      'upstream_timeout_is_not_a_key_here: 1',
    ].join('\n');
    expect(() => yaml(text)).toThrow(/:16: upstream_timeout_is_not_a_key_here: unknown key/);
    const ok = text.split('\n').slice(0, -1).join('\n');
    expect(settingOf(ok, 'upstream.args')).toEqual(['server.js', '--a,b']);
    expect(settingOf(ok, 'upstream.env')).toEqual(['PORT=3000', 'DEBUG=true', 'NAME=x=y']);
    expect(settingOf(ok, 'scenarios')).toEqual(['F1,F3']);
    expect(settingOf(ok, 'honesty')).toEqual(['off']);
    expect(settingOf(ok, 'model.temperature')).toEqual(['0.5']);
    expect(settingOf(ok, 'faults.model')).toEqual(['429']);
    expect(settingOf(ok, 'faults.model_on')).toEqual(['after-write']);
    expect(settingOf(ok, 'faults.tools')).toEqual(['create_*']);
    expect(settingOf(ok, 'tools.write')).toEqual(['create_*,book_*']);
    expect(settingOf(ok, 'patch')).toEqual(['GHOST_WRITE,IDEMPOTENCY']);
    // A switch (otel.enabled) is an on/off value like the other switches: true is on, false off.
    const otel = yaml('otel:\n  enabled: true\n  endpoint: http://127.0.0.1:4318\n  payloads: false\n').settings;
    expect(otel.map((s) => [s.flag, s.values])).toEqual([
      ['otel', ['on']],
      ['otel-endpoint', ['http://127.0.0.1:4318']],
      ['otel-payloads', ['off']],
    ]);
    expect(yaml('otel:\n  enabled: false\n').settings.map((s) => [s.flag, s.values])).toEqual([['otel', ['off']]]);
    expect(() => yaml('otel:\n  enabled: yes please\n')).toThrow(/^harness\.yaml:2: otel\.enabled: must be true or false/);
    // A key with no value is absent; a list item with a comma cannot be a comma-list item.
    expect(yaml('out:\nruns: 2\n').settings.map((s) => s.key)).toEqual(['runs']);
    expect(() => yaml('tools:\n  write: ["a,b"]\n')).toThrow(
      /^harness\.yaml:2: tools\.write\[0\]: an item must not contain a comma/,
    );
  });

  it('the starter init writes passes the schema: upstream, agent, the inline stub script, one task, F1', () => {
    const text = starterConfig({ schema: 'schema.json', bookingServer: 'server.js', exampleAgent: 'agent.js' }, 'prog');
    expect(text.startsWith('# yaml-language-server: $schema=schema.json\n')).toBe(true);
    const config = yaml(text);
    // The keys come in the flags' spec order (the help's); which keys the starter sets is what counts here.
    expect(config.settings.map((s) => s.key).sort()).toEqual(
      [
        'upstream.command',
        'upstream.args',
        'upstream.env',
        'agent.command',
        'agent.args',
        'model.stub',
        'task',
        'scenarios',
        'runs',
      ].sort(),
    );
    expect(config.settings.find((s) => s.key === 'model.stub')?.values).toMatchObject({
      inline: { write: { tool: 'create_booking' }, found_pattern: 'BK-\\d+' },
    });
  });
});
