/**
 * A snapshot of the effects view: the records the backend lists at one moment, grouped by effect key.
 * Bounded: more than {@link SNAPSHOT_MAX_RECORDS} records or {@link SNAPSHOT_MAX_BYTES} bytes of answer,
 * or a record without a key field, is no snapshot but a reason (the effects verdict is then
 * EFFECTS_UNKNOWN). What is written to a report is {@link boundedSnapshot}: the count, a hash and the
 * first records, never the whole listing. Pure.
 */
import { boundedListing, LISTING_HEAD, LISTING_HEAD_CHARS } from '../bounded-listing.js';
import { canonicalJson, isPlainObject } from '../json.js';
import type { AnswerItems } from './answer-records.js';
import { keyIdentity, keyObject, recordKey, type KeyFields } from './effect-key.js';

export const SNAPSHOT_MAX_RECORDS = 100_000;
export const SNAPSHOT_MAX_BYTES = 10 * 1024 * 1024;
/** Records of a snapshot kept in its bounded form (`src/domain/bounded-listing.ts`, shared with probe's listings). */
export const SNAPSHOT_HEAD = LISTING_HEAD;
/** Characters of one record's JSON kept in the bounded form. */
export const SNAPSHOT_HEAD_CHARS = LISTING_HEAD_CHARS;

/** The records of one effect key. */
export interface KeyGroup {
  readonly key: KeyFields;
  /** The key's values as stored, in the key's field order. */
  values: unknown[];
  /** Each record as canonical JSON, in listing order. */
  records: string[];
}

export interface Snapshot {
  keyFields: string[];
  count: number;
  /** Key identity → its records. */
  groups: Map<string, KeyGroup>;
  /** Hash of the records' canonical JSON, in listing order. */
  hash: string;
  /** The first records' canonical JSON, each cut to {@link SNAPSHOT_HEAD_CHARS}. */
  head: string[];
}

export type SnapshotResult = { ok: true; snapshot: Snapshot } | { ok: false; reason: string };

function isPrimitive(value: unknown): boolean {
  const t = typeof value;
  return value === null || t === 'string' || t === 'boolean' || (t === 'number' && Number.isFinite(value));
}

/**
 * A record's canonical JSON ({@link canonicalJson}), written directly for the usual flat record (every
 * value a string, a finite number, a boolean or null) by JSON.stringify with the sorted keys as its property
 * list — the same text canonicalJson gives, at a fraction of its cost for 100,000 records. Keys come
 * from Object.keys, so each is an own property and reading it never reaches the prototype (`__proto__`
 * included). Anything else takes canonicalJson itself.
 */
function recordText(record: unknown): string {
  if (!isPlainObject(record)) return canonicalJson(record);
  const keys = Object.keys(record).sort();
  for (let i = 0; i < keys.length; i++) if (!isPrimitive(record[keys[i]!])) return canonicalJson(record);
  // The sorted key list as JSON.stringify's property list: the keys in that order, natively.
  return JSON.stringify(record, keys);
}

/** A key's group; its `{field: value}` object is built when read (only changed keys are), not per record. */
class Group implements KeyGroup {
  readonly records: string[];
  constructor(
    private readonly fields: readonly string[],
    readonly values: unknown[],
    first: string,
  ) {
    this.records = [first];
  }

  get key(): KeyFields {
    return keyObject(this.fields, this.values);
  }
}

/** Groups what the view listed by effect key, within the bounds. */
export function takeSnapshot(listed: AnswerItems, keyFields: readonly string[]): SnapshotResult {
  if (listed.items.length > SNAPSHOT_MAX_RECORDS)
    return {
      ok: false,
      reason: `the effects view listed ${listed.items.length} records, more than the bound of ${SNAPSHOT_MAX_RECORDS}`,
    };
  if (listed.bytes > SNAPSHOT_MAX_BYTES)
    return {
      ok: false,
      reason: `the effects view answered ${listed.bytes} bytes, more than the bound of ${SNAPSHOT_MAX_BYTES} (10 MB)`,
    };
  const groups = new Map<string, KeyGroup>();
  const texts: string[] = [];
  for (let i = 0; i < listed.items.length; i++) {
    const record = listed.items[i];
    const key = recordKey(record, keyFields);
    if (!key.ok) {
      const what = listed.form === 'lines' ? 'is a line of text, not a JSON record' : `has no field '${key.missing}'`;
      return { ok: false, reason: `record ${i + 1} of the effects view ${what} (--effect-key ${keyFields.join(',')})` };
    }
    const text = recordText(record);
    texts.push(text);
    const id = keyIdentity(key.values);
    const group = groups.get(id);
    if (group === undefined) groups.set(id, new Group(keyFields, key.values, text));
    else group.records.push(text);
  }
  return { ok: true, snapshot: { keyFields: [...keyFields], groups, ...boundedListing(texts) } };
}

/** What a report holds of a snapshot: count, hash, the first records (bounded), or why there is none. */
export type BoundedSnapshot = { ok: true; count: number; hash: string; head: string[] } | { ok: false; reason: string };

export function boundedSnapshot(result: SnapshotResult): BoundedSnapshot {
  if (!result.ok) return { ok: false, reason: result.reason };
  return { ok: true, count: result.snapshot.count, hash: result.snapshot.hash, head: [...result.snapshot.head] };
}
