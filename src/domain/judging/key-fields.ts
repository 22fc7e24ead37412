/**
 * Key fields: the argument fields that carry an idempotency key. They are matched
 * case-insensitively with `-` and `_` ignored, and only at the top level of a call's arguments.
 * A call's arguments are split into the key values and the rest; the rest identifies the operation, so a
 * retry with the same arguments and the same or a new key is the same operation.
 */

import { canonicalJson, isPlainObject, ownKeys, ownValue } from '../json.js';

/** The key fields used when `--key-fields` is not given. */
export const DEFAULT_KEY_FIELDS: readonly string[] = ['idempotency_key'];

/** The own key under which non-object arguments (an array, a string, a number) are kept. */
export const NON_OBJECT_ARGUMENTS_KEY = '(arguments)';

/** The comparable form of a field name: lower-case with every `-` and `_` removed. */
export function normaliseFieldName(name: string): string {
  return name.toLowerCase().replaceAll('-', '').replaceAll('_', '');
}

/** Decides whether an argument field name is one of the configured key fields. */
export class KeyFieldMatcher {
  private readonly normalised: ReadonlySet<string>;

  /**
   * @param keyFields the configured names (`--key-fields` or {@link DEFAULT_KEY_FIELDS}); a name that is
   *   empty after normalisation (`""`, `"-"`) is ignored, as it would otherwise match such odd fields.
   */
  constructor(keyFields: readonly string[]) {
    this.normalised = new Set(keyFields.map(normaliseFieldName).filter((name) => name !== ''));
  }

  /** True when `name` is a key field, ignoring case, `-` and `_` (`Idempotency-Key`, `idempotencyKey`). */
  isKeyField(name: string): boolean {
    return this.normalised.has(normaliseFieldName(name));
  }
}

/** One key value found in a call's arguments. */
export interface KeyValue {
  /** The field name exactly as the agent sent it. */
  field: string;
  /** The value: a string as-is, anything else as its canonical JSON text. */
  value: string;
}

/** A call's arguments split into the operation's identity and its key values. */
export interface SplitArguments {
  /** A new null-prototype object with every top-level field that is not a key field. */
  operationArgs: Record<string, unknown>;
  /** The key fields found at the top level, in the order the agent sent them. */
  keys: KeyValue[];
}

/**
 * Splits a call's arguments into the operation's identity and its key values. Only top-level fields are
 * key fields (`meta.idempotency_key` stays part of the operation). The input is read through own
 * properties only and the output is a null-prototype object, so a field named `__proto__` is kept as
 * data and no prototype is read or changed. Absent arguments (undefined, null) give `{}`; an array or a
 * primitive is kept under the single own key {@link NON_OBJECT_ARGUMENTS_KEY}, so different non-object
 * arguments stay different operations.
 */
export function splitArguments(args: unknown, matcher: KeyFieldMatcher): SplitArguments {
  const operationArgs = Object.create(null) as Record<string, unknown>;
  const keys: KeyValue[] = [];
  if (args === undefined || args === null) return { operationArgs, keys };
  if (!isPlainObject(args)) {
    operationArgs[NON_OBJECT_ARGUMENTS_KEY] = args;
    return { operationArgs, keys };
  }
  for (const field of ownKeys(args)) {
    const value = ownValue(args, field);
    if (matcher.isKeyField(field)) {
      keys.push({ field, value: typeof value === 'string' ? value : canonicalJson(value) });
    } else {
      // A plain assignment: on a null-prototype object no `__proto__` setter is inherited, so even that
      // name becomes an own data property.
      operationArgs[field] = value;
    }
  }
  return { operationArgs, keys };
}

/**
 * The names of a JSON schema's top-level `properties` that are key fields, as written in the schema.
 * Anything that is not an object schema with an object `properties` gives `[]`.
 */
export function schemaKeyFields(inputSchema: unknown, matcher: KeyFieldMatcher): string[] {
  if (!isPlainObject(inputSchema)) return [];
  const properties = ownValue(inputSchema, 'properties');
  if (!isPlainObject(properties)) return [];
  return ownKeys(properties).filter((name) => matcher.isKeyField(name));
}
