/**
 * Operation identity: a write tool's name plus its arguments without the key fields, compared
 * literally after canonicalisation (object key order does not matter).
 */
import { canonicalJson } from '../json.js';
import { normaliseFieldName, splitArguments, type KeyFieldMatcher, type KeyValue } from './key-fields.js';

export interface OperationIdentity {
  /** Stable identity: tool name and canonical arguments without key fields. */
  opKey: string;
  /** The canonical arguments without key fields (JSON text). */
  canonicalArgs: string;
  /** The arguments without key fields, for the near-duplicate check. */
  operationArgs: Record<string, unknown>;
  /**
   * The idempotency key value(s); null when none. Several key fields are joined with "|" in the order of
   * their normalised field names (R-1.2: `B` and `b` are the same field, so neither the order the agent
   * wrote them in nor their case matters), each value with `\\` and `|` escaped (also a single one) so
   * that different values never join to the same key.
   */
  key: string | null;
}

/** Derives the operation of a write call. Never throws, whatever the arguments are. */
export function identifyOperation(tool: string, args: unknown, keyFields: KeyFieldMatcher): OperationIdentity {
  const { operationArgs, keys } = splitArguments(args, keyFields);
  const key = keys.length === 0 ? null : joinKeys(keys);
  // One flat text, and the arguments a slice of it: the session keeps both for the whole session, and a
  // concatenated text stays a tree of its pieces (five and more per operation) that every garbage
  // collection walks again.
  const prefix = `${JSON.stringify(tool)}:`;
  const opKey = [prefix, canonicalJson(operationArgs)].join('');
  return { opKey, canonicalArgs: opKey.slice(prefix.length), operationArgs, key };
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Several key values as one text: by normalised field name (then as sent), `\\` and `|` escaped. */
function joinKeys(keys: readonly KeyValue[]): string {
  const byField = keys
    .map((k) => ({ name: normaliseFieldName(k.field), field: k.field, value: k.value }))
    .sort((a, b) => compareText(a.name, b.name) || compareText(a.field, b.field));
  return byField.map((k) => k.value.replaceAll('\\', '\\\\').replaceAll('|', '\\|')).join('|');
}

/** A short, single-line preview of canonical arguments for reports. */
export function previewArgs(canonicalArgs: string, maxChars = 240): string {
  return canonicalArgs.length <= maxChars ? canonicalArgs : `${canonicalArgs.slice(0, maxChars - 1)}…`;
}
