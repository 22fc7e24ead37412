/**
 * Operation identity: a write tool's name plus its arguments without the key fields, compared
 * literally after canonicalisation (object key order does not matter).
 */
import { canonicalJson } from './json.js';
import { splitArguments, type KeyFieldMatcher } from './key-fields.js';

export interface OperationIdentity {
  /** Stable identity: tool name and canonical arguments without key fields. */
  opKey: string;
  /** The canonical arguments without key fields (JSON text). */
  canonicalArgs: string;
  /** The arguments without key fields, for the near-duplicate check. */
  operationArgs: Record<string, unknown>;
  /**
   * The idempotency key value(s), joined with "|" in the order of their field names when several key
   * fields were sent (so the order the agent wrote them in does not matter); null when none.
   */
  key: string | null;
}

/** Derives the operation of a write call. Never throws, whatever the arguments are. */
export function identifyOperation(tool: string, args: unknown, keyFields: KeyFieldMatcher): OperationIdentity {
  const { operationArgs, keys } = splitArguments(args, keyFields);
  const canonicalArgs = canonicalJson(operationArgs);
  const byField = [...keys].sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
  const key = keys.length === 0 ? null : byField.map((k) => k.value).join('|');
  return { opKey: `${JSON.stringify(tool)}:${canonicalArgs}`, canonicalArgs, operationArgs, key };
}

/** A short, single-line preview of canonical arguments for reports. */
export function previewArgs(canonicalArgs: string, maxChars = 240): string {
  return canonicalArgs.length <= maxChars ? canonicalArgs : `${canonicalArgs.slice(0, maxChars - 1)}…`;
}
