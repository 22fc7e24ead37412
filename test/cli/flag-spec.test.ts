/**
 * One spec per flag (src/cli/flag-spec.ts, issue 37 §3): every command's options, its help's defaults and
 * ranges, the parsers' bounds and the trial config file's bounds are compared with it here, so none of
 * them can drift from the one table.
 */
import { cac } from 'cac';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMMANDS } from '../../src/cli/commands.js';
import {
  FLAG_SPECS,
  flagSpec,
  helpOf,
  numberSpecOf,
  withValue,
  type FlagSpec,
  type NumberFlag,
} from '../../src/cli/flag-spec.js';
import { typedNames } from '../../src/cli/help.js';
import { TRIAL_CONFIG_KEYS } from '../../src/cli/trial-config-keys.js';
import type { CommandContext } from '../../src/cli/io.js';
import { parameterFlags } from '../../src/domain/faults/index.js';
import { COUNTING, runCli } from '../support/in-process-cli.js';

interface Declared {
  command: string;
  flag: string;
  rawName: string;
  isBoolean: boolean;
  description: string;
}

/** Every option each command declares to cac (the hidden ones, declared to be refused, included). */
async function declaredOptions(): Promise<Declared[]> {
  const out: Declared[] = [];
  for (const [name, load] of COMMANDS) {
    const cli = cac('x');
    (await load())(cli, {} as CommandContext);
    for (const command of cli.commands)
      for (const option of command.options)
        out.push({
          command: name,
          flag: typedNames(option.rawName)[0]!,
          rawName: option.rawName,
          isBoolean: option.isBoolean === true,
          description: option.description,
        });
  }
  return out;
}

const NUMBER_FLAGS = Object.entries(FLAG_SPECS)
  .filter(([, spec]) => 'number' in spec)
  .map(([flag]) => flag as NumberFlag);

describe('R-8.1 (issue 37 §3): one spec per flag', () => {
  it('every option of every command has its spec, declared as the spec says (its placeholder; a switch [on|off])', async () => {
    const declared = await declaredOptions();
    expect(declared.length).toBeGreaterThan(100);
    for (const option of declared) {
      expect(flagSpec(option.flag), `${option.command} --${option.flag} has no entry in FLAG_SPECS`).toBeDefined();
      expect(option.rawName, `${option.command} --${option.flag}`).toBe(withValue(option.flag));
      // cac's own switches only (--help): every switch of the harness takes on/off (`--otel [on|off]`).
      expect(option.isBoolean, `${option.command} --${option.flag}`).toBe(false);
    }
    // No entry without a command that takes the flag: the table says what exists.
    const used = new Set(declared.map((option) => option.flag));
    expect(Object.keys(FLAG_SPECS).filter((flag) => !used.has(flag))).toEqual([]);
  });

  it("every option's help line is the spec's: the command's own, else the flag's; a refused flag says why", async () => {
    for (const option of await declaredOptions())
      expect(option.description, `${option.command} --${option.flag}`).toBe(helpOf(option.command, option.flag));
    expect(helpOf('trial', 'journal')).toBe(
      "Not used by trial: each run's calls are in its run.json (transcript) and report.json",
    );
    expect(helpOf('probe', 'hold')).toBe('The older name of --gap');
    expect(helpOf('proxy', 'hold')).toMatch(/^F1 only: hold the timeout answer/);
  });

  it("no spec speaks of a command that does not take its flag, and no command repeats the flag's own line", async () => {
    const declared = await declaredOptions();
    const takes = (command: string, flag: string) => declared.some((o) => o.command === command && o.flag === flag);
    for (const [flag, spec] of Object.entries(FLAG_SPECS) as Array<[string, FlagSpec]>) {
      for (const command of [
        ...Object.keys(spec.commands ?? {}),
        ...Object.keys(spec.refused ?? {}),
        ...Object.keys(spec.olderNameOf ?? {}),
      ])
        expect(takes(command, flag), `FLAG_SPECS['${flag}'] names ${command}, which does not declare --${flag}`).toBe(true);
      for (const [command, own] of Object.entries(spec.commands ?? {}))
        expect(own.help, `${command} --${flag}: its own line is the flag's line`).not.toBe(spec.help);
      for (const newer of Object.values(spec.olderNameOf ?? {})) expect(flagSpec(newer), `--${flag} → --${newer}`).toBeDefined();
    }
  });

  it("each fault's parameter flag (F2's --retry-after) is in the spec, under Faults; its bounds stay the fault's", () => {
    for (const { parameter } of parameterFlags()) {
      expect(flagSpec(parameter.flag)?.group).toBe('faults');
      expect(flagSpec(parameter.flag)?.number).toBeUndefined();
    }
  });

  it("a help line's default and range for a number flag are the spec's, in every command that shows one", async () => {
    const declared = await declaredOptions();
    let compared = 0;
    for (const option of declared.filter((o) => (NUMBER_FLAGS as string[]).includes(o.flag))) {
      const spec = numberSpecOf(option.flag as NumberFlag, option.command);
      const defaultText = /\(default (\d[\d.]*)/.exec(option.description)?.[1];
      if (defaultText !== undefined) {
        expect(Number(defaultText), `${option.command} --${option.flag}: ${option.description}`).toBe(spec.default);
        compared++;
      }
      const range = /(\d[\d.]*)\s*[–-]\s*(\d[\d.]*)/.exec(option.description);
      if (range !== null && !/^\d+:/.test(range[0])) {
        expect([Number(range[1]), Number(range[2])], `${option.command} --${option.flag}: ${option.description}`).toEqual([
          spec.min,
          spec.max,
        ]);
      }
    }
    // max-steps, runs (trial and benchmark), concurrency, jitter, model-retries, model-timeout, agent-timeout …
    expect(compared).toBeGreaterThanOrEqual(8);
  });

  it("the trial config file's number keys have the spec's bounds (min, max, integer)", () => {
    let compared = 0;
    for (const entry of TRIAL_CONFIG_KEYS) {
      if (!(NUMBER_FLAGS as string[]).includes(entry.flag)) continue;
      const spec = numberSpecOf(entry.flag as NumberFlag, 'trial');
      const schema = z.toJSONSchema(entry.codec.schema, { io: 'input' }) as Record<string, unknown>;
      expect(
        { min: schema['minimum'], max: schema['maximum'], integer: schema['type'] === 'integer' },
        `${entry.key} (--${entry.flag})`,
      ).toEqual({ min: spec.min, max: spec.max, integer: spec.integer === true });
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(10);
  });

  it("every key of the trial config file is its flag's spec: the key it names, described by its trial help line", () => {
    const keysOfSpec = (flag: string) => {
      const config = flagSpec(flag)?.config;
      return config === undefined ? [] : 'key' in config ? [config] : [...config];
    };
    for (const entry of TRIAL_CONFIG_KEYS) {
      const config = keysOfSpec(entry.flag).find((c) => c.key === entry.key);
      expect(config, `${entry.key} is not in the spec of --${entry.flag}`).toBeDefined();
      expect(entry.description).toBe(config!.help ?? `--${entry.flag}: ${helpOf('trial', entry.flag)}`);
    }
    // No key twice; a fault's parameter has its faults. key from the fault's declaration.
    expect(new Set(TRIAL_CONFIG_KEYS.map((k) => k.key)).size).toBe(TRIAL_CONFIG_KEYS.length);
    for (const { parameter } of parameterFlags())
      expect(TRIAL_CONFIG_KEYS.find((k) => k.flag === parameter.flag)?.key).toBe(`faults.${parameter.flag.replaceAll('-', '_')}`);
  });

  it("a key of a choice flag takes the placeholder's words; a switch's key true/false or on/off", () => {
    const codec = (key: string) => TRIAL_CONFIG_KEYS.find((k) => k.key === key)!.codec.schema;
    expect(codec('agent.transport').safeParse('http').success).toBe(true);
    expect(codec('agent.transport').safeParse('tcp').success).toBe(false);
    expect(codec('tools.idempotent_hint').safeParse('ignore').success).toBe(true);
    for (const value of [true, 'off']) expect(codec('otel.enabled').safeParse(value).success).toBe(true);
    expect(codec('otel.enabled').safeParse('maybe').success).toBe(false);
  });

  /** A command line of each command that its parser reads up to the number flag (no process is started). */
  const LINES: ReadonlyArray<readonly [string, NumberFlag, readonly string[]]> = [
    ['benchmark', 'runs', ['benchmark']],
    ['benchmark', 'jitter', ['benchmark']],
    ['check', 'min-score', ['check', 'report.json']],
    ['proxy', 'upstream-timeout', ['proxy', ...COUNTING]],
    ['proxy', 'max-sessions', ['proxy', ...COUNTING, '--listen', '127.0.0.1:0', '--report-dir', 'reports']],
    ['proxy', 'session-idle-timeout', ['proxy', ...COUNTING, '--listen', '127.0.0.1:0', '--report-dir', 'reports']],
    ['proxy', 'fault-on', ['proxy', ...COUNTING, '--scenario', 'F1']],
    ['proxy', 'hold', ['proxy', ...COUNTING, '--scenario', 'F1']],
    ['proxy', 'error-rate', ['proxy', ...COUNTING, '--mode', 'chaos']],
    ['trial', 'runs', ['trial', '--model', 'm', '--task', 't', ...COUNTING]],
    ['trial', 'max-steps', ['trial', '--model', 'm', '--task', 't', ...COUNTING]],
    ['trial', 'concurrency', ['trial', '--model', 'm', '--task', 't', ...COUNTING]],
    ['trial', 'model-retries', ['trial', '--model', 'm', '--task', 't', ...COUNTING]],
    ['trial', 'model-timeout', ['trial', '--model', 'm', '--task', 't', ...COUNTING]],
    ['trial', 'temperature', ['trial', '--model', 'm', '--task', 't', ...COUNTING]],
  ];

  it.each(LINES)('%s --%s: the parser refuses a value past the spec’s bounds, naming them', async (command, flag, line) => {
    const spec = numberSpecOf(flag, command);
    const past = String(spec.max + (spec.integer === true ? 1 : 0.5));
    const result = await runCli([...line, `--${flag}`, past]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `flag --${flag} must be ${spec.integer === true ? 'an integer' : 'a number'} from ${spec.min} to ${spec.max}, got "${past}"`,
    );
  });
});
