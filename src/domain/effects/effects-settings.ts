/**
 * The effects view's settings from their flags (`--effects-tool TOOL[=JSON]`, `--effects-path a.b`,
 * `--effect-key FIELDS`, `--expect-effect K=V,…` repeatable), checked together: a view needs its key
 * (one clear error without it), and a key, a path or an expectation needs a view. Pure; the JSON of
 * `--effects-tool` arrives parsed.
 */
import { parseRecordPath } from './answer-records.js';
import { parseEffectKey, parseExpectation, type Expectation, type Parsed } from './effect-key.js';

export interface EffectsViewSettings {
  /** The upstream's read tool that lists the records, and the arguments it is called with. */
  tool: string;
  arguments: Record<string, unknown>;
  /** Where the records are inside the answer (`a.b` as its field names); empty: the answer itself. */
  path: string[];
  keyFields: string[];
  expectations: Expectation[];
}

export interface EffectsFlagValues {
  tool?: { name: string; arguments: Record<string, unknown> };
  path?: string;
  key?: string;
  expect?: readonly string[];
}

/** The view, none (null: no effects flag given), or the one error that names what is missing or wrong. */
export function effectsSettings(values: EffectsFlagValues): Parsed<EffectsViewSettings | null> {
  const expect = values.expect ?? [];
  if (values.tool === undefined) {
    const stray = [
      values.key !== undefined ? '--effect-key' : '',
      values.path !== undefined ? '--effects-path' : '',
      expect.length > 0 ? '--expect-effect' : '',
    ].filter((s) => s !== '');
    if (stray.length > 0)
      return { ok: false, error: `${stray.join(', ')} needs --effects-tool TOOL[=JSON]: the read tool that lists the records` };
    return { ok: true, value: null };
  }
  if (values.key === undefined)
    return {
      ok: false,
      error: `--effects-tool ${values.tool.name} needs --effect-key FIELDS: the record fields that make two records the same effect (e.g. guest,date)`,
    };
  const key = parseEffectKey(values.key);
  if (!key.ok) return key;
  const expectations: Expectation[] = [];
  for (const text of expect) {
    const parsed = parseExpectation(text, key.value);
    if (!parsed.ok) return parsed;
    expectations.push(parsed.value);
  }
  return {
    ok: true,
    value: {
      tool: values.tool.name,
      arguments: values.tool.arguments,
      path: parseRecordPath(values.path),
      keyFields: key.value,
      expectations,
    },
  };
}
