/**
 * The effect key (`--effect-key guest,date`): the fields that make two records the same business effect,
 * and the expected effects (`--expect-effect 'guest=Ann Lee,date=2026-05-01'`). A record's key holds its
 * values as the backend stores them (129 and "129" are two keys); an expectation's values are text and
 * match a stored value by its text (`amount=129` matches 129 and "129"). Pure; field names such as
 * `__proto__` stay own fields and never reach a prototype.
 */
import { canonicalJson, isPlainObject, ownValue } from '../json.js';

/** A key or expectation as `{field: value}`, built with own properties only. */
export type KeyFields = Record<string, unknown>;

/** An error in an effects setting, named for the operator. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** The fields of `--effect-key`: comma-separated, trimmed, none empty, none twice. */
export function parseEffectKey(text: string): Parsed<string[]> {
  const fields = text.split(',').map((field) => field.trim());
  if (fields.length === 0 || fields.some((field) => field === ''))
    return {
      ok: false,
      error: `--effect-key '${text}': give the record fields that identify an effect, comma-separated (e.g. guest,date)`,
    };
  const seen = new Set<string>();
  for (const field of fields) {
    if (seen.has(field)) return { ok: false, error: `--effect-key '${text}': the field '${field}' is named twice` };
    seen.add(field);
  }
  return { ok: true, value: fields };
}

/** `{field: value}` with every field an own, enumerable property (`__proto__` included). */
export function keyObject(fields: readonly string[], values: readonly unknown[]): KeyFields {
  const out: KeyFields = {};
  fields.forEach((field, i) =>
    Object.defineProperty(out, field, { value: values[i], enumerable: true, writable: true, configurable: true }),
  );
  return out;
}

/** An expected effect: the key fields, each with the text its stored value must have. */
export interface Expectation {
  /** The text as given, for reasons. */
  text: string;
  /** One text per key field, in the key's order. */
  values: string[];
}

/**
 * `guest=Ann Lee,date=2026-05-01`: every key field once, nothing else. A comma starts a new pair only
 * where a key field's name and `=` follow it, so a value may hold commas (`guest=Lee, Ann,date=…`).
 */
export function parseExpectation(text: string, keyFields: readonly string[]): Parsed<Expectation> {
  const bad = (why: string): Parsed<Expectation> => ({ ok: false, error: `--expect-effect '${text}': ${why}` });
  const starts: number[] = [];
  for (let i = 0; i <= text.length; i++) {
    if (i !== 0 && text[i - 1] !== ',') continue;
    const rest = text.slice(i).trimStart();
    if (keyFields.some((field) => rest.startsWith(`${field}=`) || rest.startsWith(`${field} =`))) starts.push(i);
  }
  if (starts[0] !== 0) return bad(`give every key field as field=value, comma-separated (the key is ${keyFields.join(',')})`);
  const values = new Map<string, string>();
  for (let n = 0; n < starts.length; n++) {
    const pair = text.slice(starts[n], n + 1 < starts.length ? starts[n + 1]! - 1 : text.length);
    const eq = pair.indexOf('=');
    const field = pair.slice(0, eq).trim();
    if (values.has(field)) return bad(`the field '${field}' is given twice`);
    values.set(field, pair.slice(eq + 1).trim());
  }
  const missing = keyFields.filter((field) => !values.has(field));
  if (missing.length > 0) return bad(`the key field(s) ${missing.join(', ')} are missing (the key is ${keyFields.join(',')})`);
  return { ok: true, value: { text, values: keyFields.map((field) => values.get(field)!) } };
}

/** A record's key values, or the first key field it lacks (a record that is no object lacks them all). */
export function recordKey(
  record: unknown,
  keyFields: readonly string[],
): { ok: true; values: unknown[] } | { ok: false; missing: string } {
  if (!isPlainObject(record)) return { ok: false, missing: keyFields[0]! };
  const values: unknown[] = [];
  for (const field of keyFields) {
    if (!Object.hasOwn(record, field)) return { ok: false, missing: field };
    values.push(ownValue(record, field));
  }
  return { ok: true, values };
}

/** The identity of a key: its values compared as stored (129 ≠ "129"; objects by canonical JSON). */
export function keyIdentity(values: readonly unknown[]): string {
  // The usual key (strings, finite numbers): JSON.stringify writes the same text canonicalJson would.
  const flat = values.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)));
  return flat ? JSON.stringify(values) : canonicalJson(values);
}

/** A stored value as text, for matching an expectation: a string as itself, anything else as JSON. */
export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : canonicalJson(value);
}

/** Does a stored key meet the expectation (every value's text equal)? */
export function meetsExpectation(values: readonly unknown[], expectation: Expectation): boolean {
  return expectation.values.every((text, i) => valueText(values[i]) === text);
}
