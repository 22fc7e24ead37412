/**
 * One spec per flag (src/cli/flag-spec.ts, issue 37 §3): every command's options, its help's defaults and
 * ranges, the parsers' bounds and the trial config file's bounds are compared with it here, so none of
 * them can drift from the one table.
 */
import { cac } from 'cac';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TRIAL_CONFIG_KEYS } from '../../src/adapters/schemas/trial-config.schema.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { FLAG_SPECS, flagSpec, numberSpecOf, withValue, type NumberFlag } from '../../src/cli/flag-spec.js';
import { typedNames } from '../../src/cli/help.js';
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
