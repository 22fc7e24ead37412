/**
 * Near-duplicate matcher: decides whether two tool-argument values differ only in notation, so a
 * second write after an uncertain attempt may be the same operation spelled differently.
 *
 * Recognised: number ↔ string in JSON number grammar with the same value; two strings that are both
 * plain decimals without leading zeros and have the same value; otherwise strings equal after NFC,
 * removing white space and invisible characters (format characters, variation selectors) and ignoring
 * case; `null` ↔ `""`; order inside arrays; fields added or left out when every shared field matches and
 * at least half of all fields (the union) are shared, at every level. Nothing else is.
 *
 * Caps, so hostile or huge input costs bounded time and no stack:
 * - depth: subtrees nested deeper than {@link MAX_DEPTH} levels match only when exactly equal
 *   (same canonical text);
 * - pairing: array elements are paired first by equal notation keys (a Map, linear), then greedily in
 *   order; more than {@link MAX_GREEDY_ELEMENTS} elements left for the greedy step → not a variant.
 *   Greedy pairing may miss a match when reordering and added fields inside near-identical elements
 *   combine (accepted by the spec);
 * - work: at most {@link MAX_STEPS} steps per call (one per value visited or object key read, one per
 *   {@link CHARS_PER_STEP} characters of canonical text); past that → not a variant.
 */
import { canonicalJson, ownKeys, ownValue } from '../json.js';

/** Levels of nesting compared by notation; deeper subtrees must be exactly equal. */
export const MAX_DEPTH = 256;
/** Array elements the quadratic greedy step accepts after exact pairing. */
export const MAX_GREEDY_ELEMENTS = 2_000;
/** Work budget of one comparison. */
export const MAX_STEPS = 1_000_000;
/** Characters of canonical text that cost one step. */
export const CHARS_PER_STEP = 32;

const SPACE_OR_INVISIBLE = /[\s\p{Zs}\p{Cf}\u180B-\u180D\u180F\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const PLAIN_DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;

interface Budget {
  steps: number;
}

function spend(budget: Budget, steps: number): boolean {
  budget.steps -= steps;
  return budget.steps >= 0;
}

/** White space and invisible characters removed, then composed (NFC); case kept. */
function strip(text: string): string {
  return text.replace(SPACE_OR_INVISIBLE, '').normalize('NFC');
}

/** Case-insensitive form of a stripped text (upper then lower, so "ß" and "SS" meet). */
function fold(stripped: string): string {
  return stripped.toUpperCase().toLowerCase().normalize('NFC');
}

/** A plain decimal without trailing fraction zeros and without "-0": "129.00" → "129". */
function canonicalDecimal(decimal: string): string {
  const negative = decimal.startsWith('-');
  const [whole = '', fraction = ''] = (negative ? decimal.slice(1) : decimal).split('.');
  const kept = fraction.replace(/0+$/, '');
  const digits = kept === '' ? whole : `${whole}.${kept}`;
  return negative && digits !== '0' ? `-${digits}` : digits;
}

function stringsMatch(a: string, b: string): boolean {
  const strippedA = strip(a);
  const strippedB = strip(b);
  if (PLAIN_DECIMAL.test(strippedA) && PLAIN_DECIMAL.test(strippedB)) {
    return canonicalDecimal(strippedA) === canonicalDecimal(strippedB);
  }
  return fold(strippedA) === fold(strippedB);
}

/** A string against a non-string leaf: `null` ↔ empty text, number ↔ JSON number text of equal value. */
function stringMatchesLeaf(text: string, other: unknown): boolean {
  if (other === null) return strip(text) === '';
  if (typeof other !== 'number') return false;
  const stripped = strip(text);
  return JSON_NUMBER.test(stripped) && Number(stripped) === other;
}

function leavesMatch(a: unknown, b: unknown): boolean {
  if (a === b || Object.is(a, b)) return true;
  if (typeof a !== 'string') return typeof b === 'string' && stringMatchesLeaf(b, a);
  return typeof b === 'string' ? stringsMatch(a, b) : stringMatchesLeaf(a, b);
}

function canonicalText(value: unknown, budget: Budget): string | undefined {
  const text = canonicalJson(value);
  return spend(budget, Math.ceil(text.length / CHARS_PER_STEP)) ? text : undefined;
}

/** Length-prefixed, so a sequence of framed texts decodes in one way only. */
function framed(text: string): string {
  return `${text.length}:${text}`;
}

/**
 * A text such that equal keys imply matching values (never the reverse): used to pair array elements
 * in linear time. `undefined` for values without one (bigint, functions, ...) or when out of budget.
 */
function notationKey(value: unknown, depth: number, budget: Budget): string | undefined {
  if (!spend(budget, 1)) return undefined;
  if (depth > MAX_DEPTH) {
    const text = canonicalText(value, budget);
    return text === undefined ? undefined : `x${text}`;
  }
  if (value === null) return 's';
  switch (typeof value) {
    case 'string': {
      const stripped = strip(value);
      return PLAIN_DECIMAL.test(stripped) ? `d${canonicalDecimal(stripped)}` : `s${fold(stripped)}`;
    }
    case 'number': {
      const text = String(value);
      return PLAIN_DECIMAL.test(text) ? `d${text}` : `n${text}`;
    }
    case 'boolean':
      return `b${value}`;
    case 'object':
      return Array.isArray(value) ? arrayKey(value, depth, budget) : objectKey(value, depth, budget);
    default:
      return undefined;
  }
}

function arrayKey(items: readonly unknown[], depth: number, budget: Budget): string | undefined {
  const keys: string[] = [];
  for (const item of items) {
    const key = notationKey(item, depth + 1, budget);
    if (key === undefined) return undefined;
    keys.push(framed(key));
  }
  return `a${keys.sort().join('')}`;
}

function objectKey(value: object, depth: number, budget: Budget): string | undefined {
  const parts: string[] = [];
  for (const name of ownKeys(value).sort()) {
    const key = notationKey(ownValue(value, name), depth + 1, budget);
    if (key === undefined) return undefined;
    parts.push(framed(name), framed(key));
  }
  return `o${parts.join('')}`;
}

/** Pairs elements with equal notation keys; returns the unpaired ones in their original order. */
function pairExactly(a: readonly unknown[], b: readonly unknown[], depth: number, budget: Budget) {
  const waiting = new Map<string, number[]>();
  for (let index = b.length - 1; index >= 0; index--) {
    const key = notationKey(b[index], depth, budget);
    if (key === undefined) continue;
    const bucket = waiting.get(key);
    if (bucket === undefined) waiting.set(key, [index]);
    else bucket.push(index);
  }
  const pairedB = new Array<boolean>(b.length).fill(false);
  const restA = a.filter((item) => {
    const key = notationKey(item, depth, budget);
    const index = key === undefined ? undefined : waiting.get(key)?.pop();
    if (index === undefined) return true;
    pairedB[index] = true;
    return false;
  });
  return { restA, restB: b.filter((_, index) => !pairedB[index]) };
}

function pairGreedily(a: readonly unknown[], b: readonly unknown[], depth: number, budget: Budget): boolean {
  const used = new Array<boolean>(b.length).fill(false);
  return a.every((item) => {
    const index = b.findIndex((other, i) => !used[i] && matches(item, other, depth, budget));
    if (index < 0) return false;
    used[index] = true;
    return true;
  });
}

function arraysMatch(a: readonly unknown[], b: readonly unknown[], depth: number, budget: Budget): boolean {
  if (a.length !== b.length) return false;
  if (a.length <= 1) return pairGreedily(a, b, depth + 1, budget);
  const { restA, restB } = pairExactly(a, b, depth + 1, budget);
  if (budget.steps < 0 || restA.length > MAX_GREEDY_ELEMENTS) return false;
  return pairGreedily(restA, restB, depth + 1, budget);
}

/** Every shared key matches, and shared keys are at least half of all keys. */
function objectsMatch(a: object, b: object, depth: number, budget: Budget): boolean {
  const keysA = ownKeys(a);
  const keysB = new Set(ownKeys(b));
  if (!spend(budget, keysA.length + keysB.size)) return false;
  const shared = keysA.filter((key) => keysB.has(key));
  if (2 * shared.length < keysA.length + keysB.size - shared.length) return false;
  return shared.every((key) => matches(ownValue(a, key), ownValue(b, key), depth + 1, budget));
}

function matches(a: unknown, b: unknown, depth: number, budget: Budget): boolean {
  if (!spend(budget, 1)) return false;
  if (depth > MAX_DEPTH) {
    const text = canonicalText(a, budget);
    return text !== undefined && text === canonicalText(b, budget);
  }
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return leavesMatch(a, b);
  const arrayA: readonly unknown[] | undefined = Array.isArray(a) ? a : undefined;
  const arrayB: readonly unknown[] | undefined = Array.isArray(b) ? b : undefined;
  if (arrayA !== undefined && arrayB !== undefined) return arraysMatch(arrayA, arrayB, depth, budget);
  return arrayA === undefined && arrayB === undefined && objectsMatch(a, b, depth, budget);
}

/**
 * A signature of one value's notation for indexing: two values that match have the same
 * signature, never the reverse (an array is only its length, an object only "an object"). Undefined for
 * values JSON cannot hold (non-finite numbers, bigint, undefined, ...), whose canonical text may equal
 * another value's.
 */
function topSignature(value: unknown): string | undefined {
  if (value === null) return 's';
  switch (typeof value) {
    case 'string': {
      // Strings that match have the same folded text, or are plain decimals of equal value; a string
      // matching a number is JSON number text of its value. Folding keeps a JSON number's value.
      const folded = fold(strip(value));
      return JSON_NUMBER.test(folded) ? `n${String(Number(folded))}` : `s${folded}`;
    }
    case 'number':
      return Number.isFinite(value) ? `n${String(value)}` : undefined;
    case 'boolean':
      return `b${value}`;
    case 'object':
      return Array.isArray(value) ? `a${value.length}` : 'o';
    default:
      return undefined;
  }
}

/**
 * The top level of tool arguments as the near-duplicate index sees it (`uncertain-tracker.ts`): for an
 * object its sorted field names and each field's notation signature, for any other value one signature.
 * Two values for which {@link isNotationVariant} holds either have the same `fields` and the same
 * `signatures`, or are both objects whose shared fields have the same signatures and are at least half
 * of all their fields. Undefined when the value holds something JSON cannot (then it has no index entry).
 */
export interface NotationShape {
  /** Sorted field names; null when the arguments are not an object. */
  fields: readonly string[] | null;
  /** One signature per field (or one for a non-object value). */
  signatures: readonly string[];
}

export function notationShape(args: unknown): NotationShape | undefined {
  try {
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      const signature = topSignature(args);
      return signature === undefined ? undefined : { fields: null, signatures: [signature] };
    }
    const fields = ownKeys(args).sort();
    const signatures: string[] = [];
    for (const field of fields) {
      const signature = topSignature(ownValue(args, field));
      if (signature === undefined) return undefined;
      signatures.push(signature);
    }
    return { fields, signatures };
  } catch {
    return undefined;
  }
}

/**
 * True when `a` and `b` (tool arguments with key fields already removed) differ only in notation,
 * including when they are exactly equal (same canonical JSON). Symmetric: the pair is always compared
 * in the order of its canonical texts. Never throws (a Proxy whose traps throw gives `false`), never
 * writes into its input, and costs bounded stack and time (see the caps above).
 */
export function isNotationVariant(a: unknown, b: unknown): boolean {
  try {
    const textA = canonicalJson(a);
    const textB = canonicalJson(b);
    if (textA === textB) return true;
    const budget: Budget = { steps: MAX_STEPS };
    const result = textA < textB ? matches(a, b, 0, budget) : matches(b, a, 0, budget);
    return result && budget.steps >= 0;
  } catch {
    return false;
  }
}
