/**
 * The effects view's settings from their flags (`--effects-tool TOOL[=JSON]` or `--effects-command CMD`
 * with `--effects-arg ARG` repeatable, `--effects-path a.b`, `--effect-key FIELDS`, `--expect-effect K=V,…`
 * repeatable), checked together: a view needs its key (one clear error without it), one source only, and a
 * key, a path or an expectation needs a view. Pure; the JSON of `--effects-tool` arrives parsed.
 */
import { parseRecordPath } from './answer-records.js';
import { parseEffectKey, parseExpectation, type Expectation, type Parsed } from './effect-key.js';

interface ViewCommon {
  /** Where the records are inside the answer (`a.b` as its field names); empty: the answer itself. */
  path: string[];
  keyFields: string[];
  expectations: Expectation[];
}

/** `--effects-tool`: the upstream's read tool that lists the records, and the arguments it is called with. */
export interface ToolView extends ViewCommon {
  tool: string;
  arguments: Record<string, unknown>;
  command?: undefined;
}

/** `--effects-command`: a program that prints the records, and its arguments. */
export interface CommandView extends ViewCommon {
  command: string;
  args: string[];
  tool?: undefined;
}

export type EffectsViewSettings = ToolView | CommandView;

export interface EffectsFlagValues {
  tool?: { name: string; arguments: Record<string, unknown> };
  command?: string;
  args?: readonly string[];
  path?: string;
  key?: string;
  expect?: readonly string[];
}

const VIEW_FLAGS = '--effects-tool TOOL[=JSON] or --effects-command CMD';

/** The view, none (null: no effects flag given), or the one error that names what is missing or wrong. */
export function effectsSettings(values: EffectsFlagValues): Parsed<EffectsViewSettings | null> {
  const expect = values.expect ?? [];
  const args = values.args ?? [];
  if (values.tool !== undefined && values.command !== undefined)
    return { ok: false, error: 'give --effects-tool or --effects-command, not both: one view lists the records' };
  if (args.length > 0 && values.command === undefined)
    return { ok: false, error: '--effects-arg is an argument of --effects-command CMD: give --effects-command too' };
  if (values.tool === undefined && values.command === undefined) {
    const stray = [
      values.key !== undefined ? '--effect-key' : '',
      values.path !== undefined ? '--effects-path' : '',
      expect.length > 0 ? '--expect-effect' : '',
    ].filter((s) => s !== '');
    if (stray.length > 0) return { ok: false, error: `${stray.join(', ')} needs ${VIEW_FLAGS}: the view that lists the records` };
    return { ok: true, value: null };
  }
  const source = values.tool !== undefined ? `--effects-tool ${values.tool.name}` : `--effects-command ${values.command}`;
  if (values.key === undefined)
    return {
      ok: false,
      error: `${source} needs --effect-key FIELDS: the record fields that make two records the same effect (e.g. guest,date)`,
    };
  const key = parseEffectKey(values.key);
  if (!key.ok) return key;
  const expectations: Expectation[] = [];
  for (const text of expect) {
    const parsed = parseExpectation(text, key.value);
    if (!parsed.ok) return parsed;
    expectations.push(parsed.value);
  }
  const common: ViewCommon = { path: parseRecordPath(values.path), keyFields: key.value, expectations };
  if (values.tool !== undefined)
    return { ok: true, value: { tool: values.tool.name, arguments: values.tool.arguments, ...common } };
  return { ok: true, value: { command: values.command!, args: [...args], ...common } };
}

/** How a view is named in reasons and notices: `the effects tool search_bookings`, `the effects command sh`. */
export function viewName(view: EffectsViewSettings): string {
  return view.command !== undefined ? `the effects command ${view.command}` : `the effects tool ${view.tool}`;
}
