/**
 * The effects view's flags, shared by every command that takes them: `--effects-tool TOOL[=JSON]`,
 * `--effects-path a.b`, `--effect-key FIELDS` and the repeatable `--expect-effect K=V,…`. One clear line
 * for anything wrong (a view without its key above all), before anything starts.
 */
import { effectsSettings, type EffectsViewSettings } from '../domain/effects/effects-settings.js';
import { repeated, single, toolAndJson, type FlagValues } from './argv.js';
import { UsageError } from './errors.js';

/** The effects flags (their help lines are the spec's, `flag-spec.ts`). */
export const EFFECTS_FLAGS: readonly string[] = [
  'effects-tool',
  'effects-command',
  'effects-arg',
  'effects-path',
  'effect-key',
  'expect-effect',
];

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
