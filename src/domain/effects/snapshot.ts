/**
 * A snapshot of the effects view: the records the backend lists at one moment, grouped by effect key.
 * Bounded: more than {@link SNAPSHOT_MAX_RECORDS} records or {@link SNAPSHOT_MAX_BYTES} bytes of answer,
 * or a record without a key field, is no snapshot but a reason (the effects verdict is then
 * EFFECTS_UNKNOWN). What is written to a report is {@link boundedSnapshot}: the count, a hash and the
 * first records, never the whole listing. Pure.
 */
import { boundedListing, LISTING_HEAD, LISTING_HEAD_CHARS } from './bounded-listing.js';
import { canonicalJson, isPlainObject } from '../json.js';
import type { AnswerItems } from './answer-records.js';
import { keyIdentity, keyObject, recordKey, type KeyFields } from './effect-key.js';

export const SNAPSHOT_MAX_RECORDS = 100_000;
export const SNAPSHOT_MAX_BYTES = 10 * 1024 * 1024;
/** Records of a snapshot kept in its bounded form (`src/domain/effects/bounded-listing.ts`, shared with probe's listings). */
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
  /** Key identity → its records, in the order each key is first listed (built when first read). */
  readonly groups: Map<string, KeyGroup>;
  /** Each record's canonical JSON, in listing order. */
  readonly texts: readonly string[];
  /** Each record's key identity (`keyIdentity`), in listing order. */
  readonly ids: readonly string[];
  /** The key's values as stored of the record at an index (the first record of its key names the key). */
  keyValuesAt(index: number): unknown[];
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
 * A record's canonical JSON ({@link canonicalJson}) by the general route: for the usual flat record
 * (every value a string, a finite number, a boolean or null) JSON.stringify with the sorted keys as its
 * property list — the same text canonicalJson gives —, anything else canonicalJson itself. Keys come from
 * Object.keys, so each is an own property and reading it never reaches the prototype (`__proto__`
 * included). The listing's usual records take {@link FlatReader} instead, which writes the same text.
 */
function recordText(record: unknown): string {
  if (!isPlainObject(record)) return canonicalJson(record);
  const keys = Object.keys(record).sort();
  for (let i = 0; i < keys.length; i++) if (!isPrimitive(record[keys[i]!])) return canonicalJson(record);
  // The sorted key list as JSON.stringify's property list: the keys in that order, natively.
  return JSON.stringify(record, keys);
}

/** A value's JSON text when it is a flat one (string, finite number, boolean, null); undefined otherwise. */
function flatValueText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      // A finite number's JSON is its String (-0 is "0" both ways).
      return Number.isFinite(value) ? String(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return value === null ? 'null' : undefined;
  }
}

/**
 * Reads the records of one listing that share a shape — a listing's records nearly always have the same
 * fields in the same order — writing what {@link recordText} and `keyIdentity` would give at a fraction of
 * their cost (measured in `npm run bench:effects`): the sorting, the quoted keys and where the key fields
 * are is worked out once per shape (the last record's own keys, compared field by field), and each
 * record's text is its values' JSON between those quoted keys, joined into one flat string. A record it
 * does not serve — not an object, a key field that is not an own enumerable field, a value that is not
 * flat — is `false`, and takes the general route, so every record gets the same text and identity either
 * way. What it read is in {@link text} and {@link id} until the next record.
 */
class FlatReader {
  text = '';
  id = '';
  private keys: string[] = [];
  private sorted: string[] = [];
  /** `{"date":`, `,"guest":`, …: what precedes each sorted key's value. */
  private prefixes: string[] = [];
  /** Per key field, its index in `sorted`; -1 when the shape lacks it. */
  private keyAt: number[] = [];
  private shaped = false;
  /** The record's text in parts (each prefix, then its value's JSON), joined flat; reused. */
  private readonly parts: string[] = [];

  constructor(private readonly keyFields: readonly string[]) {}

  private shape(keys: string[]): void {
    if (this.shaped && keys.length === this.keys.length) {
      let same = true;
      for (let i = 0; i < keys.length; i++)
        if (keys[i] !== this.keys[i]) {
          same = false;
          break;
        }
      if (same) return;
    }
    this.shaped = true;
    this.keys = keys;
    this.sorted = [...keys].sort();
    this.prefixes = this.sorted.map((key, i) => `${i === 0 ? '{' : ','}${JSON.stringify(key)}:`);
    this.keyAt = this.keyFields.map((field) => this.sorted.indexOf(field));
    this.parts.length = 0;
  }

  read(record: unknown): boolean {
    if (!isPlainObject(record)) return false;
    this.shape(Object.keys(record));
    const { sorted, prefixes, keyAt, parts } = this;
    for (let j = 0; j < keyAt.length; j++) if (keyAt[j]! < 0) return false;
    for (let i = 0; i < sorted.length; i++) {
      const part = flatValueText(record[sorted[i]!]);
      if (part === undefined) return false;
      parts[2 * i] = prefixes[i]!;
      parts[2 * i + 1] = part;
    }
    parts[2 * sorted.length] = sorted.length === 0 ? '{}' : '}';
    // keyIdentity's text for a key of strings and finite numbers is their JSON as an array.
    let id = '[';
    for (let j = 0; j < keyAt.length; j++) {
      const at = keyAt[j]!;
      const t = typeof record[sorted[at]!];
      if (t !== 'string' && t !== 'number') return false;
      id += j === 0 ? parts[2 * at + 1]! : `,${parts[2 * at + 1]!}`;
    }
    this.text = parts.join('');
    this.id = `${id}]`;
    return true;
  }
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

/**
 * A snapshot as listed: each record's text and key identity in listing order, the records themselves for
 * the key values of the few keys a diff names, and the groups by key built only when read (a diff does
 * not need them: `diffSnapshots`). The records are the listing's parsed values, read and never changed.
 */
class ListedSnapshot implements Snapshot {
  readonly count: number;
  readonly hash: string;
  readonly head: string[];
  private grouped: Map<string, KeyGroup> | undefined;

  constructor(
    readonly keyFields: string[],
    private readonly records: readonly unknown[],
    readonly texts: readonly string[],
    readonly ids: readonly string[],
  ) {
    const bounded = boundedListing(texts);
    this.count = bounded.count;
    this.hash = bounded.hash;
    this.head = bounded.head;
  }

  keyValuesAt(index: number): unknown[] {
    const key = recordKey(this.records[index], this.keyFields);
    if (!key.ok) throw new Error(`snapshot: record ${index + 1} has no field '${key.missing}'`);
    return key.values;
  }

  get groups(): Map<string, KeyGroup> {
    if (this.grouped === undefined) {
      const groups = new Map<string, KeyGroup>();
      for (let i = 0; i < this.ids.length; i++) {
        const id = this.ids[i]!;
        const group = groups.get(id);
        if (group === undefined) groups.set(id, new Group(this.keyFields, this.keyValuesAt(i), this.texts[i]!));
        else group.records.push(this.texts[i]!);
      }
      this.grouped = groups;
    }
    return this.grouped;
  }
}

/** Reads what the view listed: each record's text and key identity, within the bounds. */
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
  const records = listed.items;
  const texts: string[] = new Array<string>(records.length);
  const ids: string[] = new Array<string>(records.length);
  const flat = new FlatReader(keyFields);
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    if (flat.read(record)) {
      texts[i] = flat.text;
      ids[i] = flat.id;
      continue;
    }
    const key = recordKey(record, keyFields);
    if (!key.ok) {
      const what = listed.form === 'lines' ? 'is a line of text, not a JSON record' : `has no field '${key.missing}'`;
      return { ok: false, reason: `record ${i + 1} of the effects view ${what} (--effect-key ${keyFields.join(',')})` };
    }
    texts[i] = recordText(record);
    ids[i] = keyIdentity(key.values);
  }
  return { ok: true, snapshot: new ListedSnapshot([...keyFields], [...records], texts, ids) };
}

/** What a report holds of a snapshot: count, hash, the first records (bounded), or why there is none. */
export type BoundedSnapshot = { ok: true; count: number; hash: string; head: string[] } | { ok: false; reason: string };

export function boundedSnapshot(result: SnapshotResult): BoundedSnapshot {
  if (!result.ok) return { ok: false, reason: result.reason };
  return { ok: true, count: result.snapshot.count, hash: result.snapshot.hash, head: [...result.snapshot.head] };
}
