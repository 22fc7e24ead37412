/**
 * JSON helpers that are safe on hostile input: any depth (no recursion), keys like `__proto__`, values
 * that JSON cannot hold (undefined, functions, bigint, NaN) and even cycles, which cannot come from
 * parsed JSON but must not hang or crash the judge.
 */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };

/** A plain object: `{}`-like, not an array, not null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own enumerable string keys, read without touching the prototype chain. */
export function ownKeys(value: object): string[] {
  return Object.keys(value);
}

/** Reads an own property; never follows the prototype (`obj['__proto__']` would). */
export function ownValue(value: object, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(value, key);
  return descriptor === undefined ? undefined : descriptor.value;
}

function primitiveText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(value.toString());
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      return value === null ? 'null' : undefined;
  }
}

type Frame =
  | { kind: 'array'; items: readonly unknown[]; index: number; node: object }
  | { kind: 'object'; keys: string[]; index: number; source: object; wroteAny: boolean; node: object };

/**
 * Canonical JSON text: object keys sorted by code unit, no white space, `undefined` members left out,
 * non-finite numbers as `null`, bigints as decimal strings, cycles as the string "[Circular]".
 * Two values have the same canonical text exactly when they are equal as JSON with key order ignored.
 * A 100,000-deep value costs no stack: the usual small value (a call's arguments, an answer) is written by
 * a short recursive walk bounded in depth and size; anything beyond those bounds, or a cycle, by the
 * iterative one ({@link canonicalJsonIterative}), which gives the same text for every value.
 */
export function canonicalJson(value: unknown): string {
  const budget = { nodes: SHORT_WALK_NODES };
  return shortWalk(value, 0, budget) ?? canonicalJsonIterative(value);
}

/** The bounds of the recursive walk: nesting depth, and values visited (a shared or cyclic value counts at every visit). */
const SHORT_WALK_DEPTH = 32;
const SHORT_WALK_NODES = 2048;

/** `canonicalJson` of a value within the bounds, recursively; undefined when it leaves them (or meets a cycle). */
function shortWalk(value: unknown, depth: number, budget: { nodes: number }): string | undefined {
  const text = primitiveText(value);
  if (text !== undefined) return text;
  if (typeof value !== 'object' || value === null) return 'null';
  if (depth >= SHORT_WALK_DEPTH || --budget.nodes < 0) return undefined;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const t = typeof item;
      const part = t === 'undefined' || t === 'function' || t === 'symbol' ? 'null' : shortWalk(item, depth + 1, budget);
      if (part === undefined) return undefined;
      out += i === 0 ? part : `,${part}`;
    }
    return `${out}]`;
  }
  const keys = ownKeys(value).sort();
  let out = '{';
  let wroteAny = false;
  for (const key of keys) {
    const item = ownValue(value, key);
    const t = typeof item;
    if (t === 'undefined' || t === 'function' || t === 'symbol') continue;
    const part = shortWalk(item, depth + 1, budget);
    if (part === undefined) return undefined;
    out += `${wroteAny ? ',' : ''}${JSON.stringify(key)}:${part}`;
    wroteAny = true;
  }
  return `${out}}`;
}

/** {@link canonicalJson} by an explicit stack: any depth, cycles written as "[Circular]". */
export function canonicalJsonIterative(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = new Set<object>();

  const enter = (v: unknown): void => {
    const text = primitiveText(v);
    if (text !== undefined) {
      out.push(text);
      return;
    }
    if (typeof v !== 'object' || v === null) {
      out.push('null');
      return;
    }
    if (open.has(v)) {
      out.push('"[Circular]"');
      return;
    }
    open.add(v);
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ kind: 'array', items: v, index: 0, node: v });
    } else {
      out.push('{');
      const keys = ownKeys(v).sort();
      stack.push({ kind: 'object', keys, index: 0, source: v, wroteAny: false, node: v });
    }
  };

  enter(value);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.kind === 'array') {
      if (frame.index >= frame.items.length) {
        out.push(']');
        open.delete(frame.node);
        stack.pop();
        continue;
      }
      if (frame.index > 0) out.push(',');
      const item = frame.items[frame.index++];
      const t = typeof item;
      enter(t === 'undefined' || t === 'function' || t === 'symbol' ? null : item);
    } else {
      if (frame.index >= frame.keys.length) {
        out.push('}');
        open.delete(frame.node);
        stack.pop();
        continue;
      }
      const key = frame.keys[frame.index++]!;
      const item = ownValue(frame.source, key);
      const t = typeof item;
      if (t === 'undefined' || t === 'function' || t === 'symbol') continue;
      if (frame.wroteAny) out.push(',');
      frame.wroteAny = true;
      out.push(JSON.stringify(key), ':');
      enter(item);
    }
  }
  return out.join('');
}

/**
 * The state of {@link hashText} and {@link hashJoined} (h1, h2) between their steps: one scratch pair,
 * used synchronously only (each hash starts, mixes and finishes within one call).
 */
const HASH = new Int32Array(2);

function startHash(seed: number): void {
  HASH[0] = 0xdeadbeef ^ seed;
  HASH[1] = 0x41c6ce57 ^ seed;
}

/** One text's characters into the hash state. */
function mixText(text: string): void {
  let h1 = HASH[0]!;
  let h2 = HASH[1]!;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  HASH[0] = h1;
  HASH[1] = h2;
}

function finishHash(): string {
  let h1 = HASH[0]!;
  let h2 = HASH[1]!;
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * A 53-bit string hash (cyrb53). Used to fingerprint upstream answers and canonical arguments; not a
 * security boundary.
 */
export function hashText(text: string, seed = 0): string {
  startHash(seed);
  mixText(text);
  return finishHash();
}

/**
 * {@link hashText} of the texts joined by line feeds, without joining them (a snapshot's 100,000
 * records need not become one string to be hashed): the same characters go through the same steps.
 */
export function hashJoined(texts: readonly string[], seed = 0): string {
  startHash(seed);
  for (let t = 0; t < texts.length; t++) {
    if (t > 0) mixText('\n');
    mixText(texts[t]!);
  }
  return finishHash();
}

/** Whether a value is nested deeper than `limit` (a primitive has depth 0, `[]` and `{}` depth 1), without recursion. */
export function depthExceeds(value: unknown, limit: number): boolean {
  // Two parallel stacks of the objects still to visit and their depths (an answer is checked on every
  // call: no frame object per value); primitives are never pushed.
  const values: object[] = [];
  const depths: number[] = [];
  if (typeof value === 'object' && value !== null) {
    values.push(value);
    depths.push(1);
  }
  while (values.length > 0) {
    const v = values.pop()!;
    const d = depths.pop()!;
    if (d > limit) return true;
    const isArray = Array.isArray(v);
    const keys = isArray ? null : ownKeys(v);
    const length = keys === null ? (v as unknown[]).length : keys.length;
    for (let i = 0; i < length; i++) {
      const child = keys === null ? (v as unknown[])[i] : ownValue(v, keys[i]!);
      if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(d + 1);
      }
    }
  }
  return false;
}

/** The canonical JSON of a tool call's arguments text (empty text: `{}`), or the text itself when it is no JSON. */
export function canonicalArguments(text: string): string {
  try {
    return canonicalJson(text.trim() === '' ? {} : JSON.parse(text));
  } catch {
    return text;
  }
}
