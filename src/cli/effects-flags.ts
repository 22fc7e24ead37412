/**
 * The effects view's flags, shared by every command that takes them: `--effects-tool TOOL[=JSON]`,
 * `--effects-path a.b`, `--effect-key FIELDS` and the repeatable `--expect-effect K=V,…`. One clear line
 * for anything wrong (a view without its key above all), before anything starts.
 */
import { effectsSettings, type EffectsViewSettings } from '../domain/effects/effects-settings.js';
import { repeated, single, toolAndJson, type FlagValues } from './argv.js';
import { UsageError } from './errors.js';

/** [flag, description] of the effects flags, in help order. */
export const EFFECTS_FLAG_HELP: ReadonlyArray<readonly [string, string]> = [
  [
    'effects-tool',
    "TOOL[=JSON]: a read tool of the upstream that lists the backend's records; the harness calls it itself at start and at the end (never through the agent's session, never faulted or counted) and judges the effects (docs/effects.md)",
  ],
  [
    'effects-command',
    'CMD: instead of --effects-tool, a program that prints the records (JSON array, JSON lines or an object with arrays); run at start and at the end with --effects-arg as its arguments; exit 0 with no output is zero records',
  ],
  ['effects-arg', 'One argument of --effects-command; repeatable (e.g. -c, then a shell line)'],
  [
    'effects-path',
    'With --effects-tool: where the records are inside its answer, as field names a.b (default: the answer itself)',
  ],
  [
    'effect-key',
    'With --effects-tool (required): comma-separated record fields that make two records the same effect, e.g. guest,date',
  ],
  [
    'expect-effect',
    "With --effects-tool: an effect the run should create, FIELD=VALUE,… over every --effect-key field, e.g. 'guest=Ann Lee,date=2026-05-01'; repeatable",
  ],
];

export const EFFECTS_VALUE_FLAGS = EFFECTS_FLAG_HELP.map(([flag]) => flag);

/** The effects view the flags ask for, or null when none of them is given. */
export function parseEffectsFlags(values: FlagValues, placeholders: 'expand' | 'refuse' = 'refuse'): EffectsViewSettings | null {
  const toolText = single(values, 'effects-tool');
  const tool = toolText === undefined ? undefined : toolAndJson(toolText, 'effects-tool', false);
  const command = single(values, 'effects-command');
  const path = single(values, 'effects-path');
  const key = single(values, 'effect-key');
  const settings = effectsSettings({
    ...(tool !== undefined ? { tool: { name: tool[0], arguments: tool[1] ?? {} } } : {}),
    ...(command !== undefined ? { command } : {}),
    args: repeated(values, 'effects-arg'),
    ...(path !== undefined ? { path } : {}),
    ...(key !== undefined ? { key } : {}),
    expect: repeated(values, 'expect-effect'),
  });
  if (!settings.ok) throw new UsageError(settings.error);
  const view = settings.value;
  if (view?.command !== undefined && placeholders !== 'expand') {
    const text = [view.command, ...view.args].find((part) => /\{run(?:_dir)?\}/.test(part));
    if (text !== undefined)
      throw new UsageError(
        `--effects-command: "${text}" holds {run} or {run_dir}, which trial fills in per run; this command has no run folder`,
      );
  }
  return view;
}
