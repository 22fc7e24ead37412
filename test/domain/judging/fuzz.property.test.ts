/**
 * Fuzzing of the judge with hostile input: generated values with `__proto__` / `constructor` /
 * `prototype` keys (own keys, as JSON.parse makes them), lone surrogates, invisible characters, integers
 * above 2^53 and deep nesting go through the canonicaliser, the near-duplicate matcher, the operation
 * identity and a whole EvaluationSession. Nothing may throw, pollute a prototype or depend on key order;
 * every rule that is symmetric must be, and every answer must be deterministic.
 * Env FUZZ_RUNS sets the number of generated cases (default 100 in the scale project, 10 in unit:
 * test/support/property-runs.ts; e.g. FUZZ_RUNS=5000 for a soak).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExecutionOutcome } from '../../../src/domain/judging/attempt.js';
import type { ToolClass } from '../../../src/domain/judging/classification.js';
import type { ScenarioConfig } from '../../../src/domain/faults/fault-plan.js';
import { canonicalJson, canonicalJsonIterative } from '../../../src/domain/json.js';
import { DEFAULT_KEY_FIELDS, KeyFieldMatcher } from '../../../src/domain/judging/key-fields.js';
import { isNotationVariant } from '../../../src/domain/judging/near-duplicate.js';
import { identifyOperation } from '../../../src/domain/judging/operation.js';
import { serializeDocument } from '../../../src/domain/report/report-document.js';
import { EvaluationSession } from '../../../src/domain/judging/session.js';
import { deepArray, deepOwnProto, STACK_DEEP, withOwn } from '../../support/deep-values.js';
import { fixedRandom, TestClock } from '../../support/session-driver.js';
import { propertyRuns } from '../../support/property-runs.js';

const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'idempotency_key',
  'Idempotency-Key',
  '',
];
const INVISIBLE = ['\u200b', '\u200d', '\ufeff', '\u00ad', '\u202e', '\u2028', '\ufe0f', '\u0000', ' '];
const key = fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ unit: 'binary', maxLength: 6 }));
const oddString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('\ud800', '\udfff', 'a\ud83d', '129.00', '129', ' 1e3 ', 'ß', 'SS', 'e\u0301', '\u00e9'),
  fc
    .tuple(fc.string({ maxLength: 4 }), fc.constantFrom(...INVISIBLE), fc.string({ maxLength: 4 }))
    .map(([a, mark, b]) => `${a}${mark}${b}`),
);
const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 70n }).map(Number),
  fc.constant(-0),
);
const leaf = fc.oneof(oddString, number, fc.boolean(), fc.constant(null));
/** JSON-like values as JSON.parse would build them from hostile text. */
const hostile: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 5 }).map(withOwn),
  ),
})).value;
/**
 * A chain of `depth` arrays or objects around a leaf, built without recursion: across the matcher's
 * MAX_DEPTH (256), yet shallow enough for fast-check to print a counterexample (deeper ones are tested
 * separately below, and 100,000 levels in test/scale/deep-values.test.ts).
 */
const deep = fc.tuple(fc.integer({ min: 200, max: 1200 }), fc.boolean(), leaf).map(([depth, arrays, inner]) => {
  let value: unknown = inner;
  for (let i = 0; i < depth; i++) value = arrays ? [value] : withOwn([['__proto__', value]]);
  return value;
});
const anyArgs = fc.oneof({ weight: 4, arbitrary: hostile }, { weight: 1, arbitrary: deep });

/** Rebuilds a value with every object's keys in the order `order` picks (own keys kept own). */
function reorder(value: unknown, order: (keys: string[]) => string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => reorder(item, order));
  if (typeof value !== 'object' || value === null) return value;
  const source = value as Record<string, unknown>;
  return withOwn(
    order(Object.keys(source)).map((k) => [k, reorder(Object.getOwnPropertyDescriptor(source, k)?.value, order)] as const),
  );
}

/** Generated cases per property. */
const RUNS = { numRuns: Number(process.env['FUZZ_RUNS'] ?? propertyRuns(100)) };

const prototypeNames = () =>
  [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((p) => Object.getOwnPropertyNames(p).sort());

/** Runs `body` and asserts afterwards that no built-in prototype gained or lost a property. */
function withoutPollution(body: () => void): void {
  const before = prototypeNames();
  body();
  expect(prototypeNames()).toEqual(before);
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
}

/** Any JavaScript value: boxed values, maps, typed and sparse arrays, null prototypes, keys like `__proto__`. */
const anyValue = fc.anything({
  key,
  withBigInt: true,
  withBoxedValues: true,
  withMap: true,
  withNullPrototype: true,
  withSparseArray: true,
  withTypedArray: true,
});

describe('fuzz: canonicalJson', () => {
  it('R-13: never throws on anything, and is deterministic', () => {
    withoutPollution(() =>
      fc.assert(
        fc.property(anyValue, (value) => {
          expect(canonicalJson(value)).toBe(canonicalJson(value));
        }),
        RUNS,
      ),
    );
  });

  it('R-1.1: key order at any depth does not change the text; the text is valid JSON and a fixed point', () => {
    const shuffles = fc.constantFrom(
      (keys: string[]) => [...keys].reverse(),
      (keys: string[]) => [...keys].sort(),
      (keys: string[]) => [...keys.slice(1), ...keys.slice(0, 1)],
    );
    withoutPollution(() =>
      fc.assert(
        fc.property(anyArgs, shuffles, (value, order) => {
          const text = canonicalJson(value);
          expect(canonicalJson(reorder(value, order))).toBe(text);
          expect(canonicalJson(JSON.parse(text))).toBe(text);
        }),
        RUNS,
      ),
    );
  });

  it('R-1.1: the short recursive walk gives the text of the iterative one for anything, shared, cyclic and deep values included', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    cyclic['list'] = [cyclic, { back: cyclic }];
    // Shared, not cyclic: 2^12 paths, beyond the walk's budget of visits.
    let wide: unknown = 'leaf';
    for (let i = 0; i < 12; i++) wide = { left: wide, right: [wide] };
    // Chains around the walk's depth bound (32), as arrays and as objects.
    const chains = [30, 31, 32, 33, 40].flatMap((depth) => {
      let array: unknown = 1;
      let object: unknown = 1;
      for (let i = 0; i < depth; i++) {
        array = [array];
        object = withOwn([['__proto__', object]]);
      }
      return [array, object];
    });
    for (const value of [cyclic, [cyclic], wide, ...chains]) expect(canonicalJson(value)).toBe(canonicalJsonIterative(value));
    expect(canonicalJson(cyclic)).toBe('{"a":1,"list":["[Circular]",{"back":"[Circular]"}],"self":"[Circular]"}');
    withoutPollution(() =>
      fc.assert(
        fc.property(fc.oneof(anyArgs, anyValue), (value) => {
          expect(canonicalJson(value)).toBe(canonicalJsonIterative(value));
        }),
        { numRuns: 4 * RUNS.numRuns },
      ),
    );
  });

  it(`R-13: ${STACK_DEEP}-deep arrays and objects cost no stack (100,000: test/scale/deep-values.test.ts)`, () => {
    expect(canonicalJson(deepArray(STACK_DEEP, 1))).toHaveLength(2 * STACK_DEEP + 1);
    expect(canonicalJson(deepOwnProto(STACK_DEEP, 1))).toHaveLength(STACK_DEEP * '{"__proto__":}'.length + 1);
  });
});

describe('fuzz: isNotationVariant on hostile pairs', () => {
  it('R-6: never throws, boolean, deterministic, symmetric, reflexive, input untouched', () => {
    withoutPollution(() =>
      fc.assert(
        fc.property(anyArgs, anyArgs, (a, b) => {
          const [textA, textB] = [canonicalJson(a), canonicalJson(b)];
          const forward = isNotationVariant(a, b);
          expect(typeof forward).toBe('boolean');
          expect(isNotationVariant(a, b)).toBe(forward);
          expect(isNotationVariant(b, a)).toBe(forward);
          expect(isNotationVariant(a, a)).toBe(true);
          expect([canonicalJson(a), canonicalJson(b)]).toEqual([textA, textB]);
        }),
        RUNS,
      ),
    );
  });

  it('R-6: an invisible character or a case change inside hostile-keyed values is a notation variant, and symmetric', () => {
    const mark = fc.constantFrom(...INVISIBLE.filter((c) => c !== '\u0000'));
    fc.assert(
      fc.property(
        fc.constantFrom(...HOSTILE_KEYS.filter((k) => k !== 'idempotency_key')),
        fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 }),
        mark,
        (k, text, invisible) => {
          const a = withOwn([
            [k, text],
            ['item', 'tea'],
          ]);
          const b = withOwn([
            [k, `${invisible}${text.toUpperCase()}`],
            ['item', 'TEA'],
          ]);
          return isNotationVariant(a, b) && isNotationVariant(b, a);
        },
      ),
      RUNS,
    );
  });
});

describe('fuzz: identifyOperation', () => {
  const matcher = new KeyFieldMatcher(DEFAULT_KEY_FIELDS);
  const tool = fc.oneof(
    fc.constantFrom('create_order', '__proto__', 'constructor', 'a:b', ''),
    fc.string({ unit: 'binary', maxLength: 6 }),
  );

  it('R-1.1: never throws, deterministic, key-order invariant, input untouched', () => {
    withoutPollution(() =>
      fc.assert(
        fc.property(tool, anyArgs, (name, args) => {
          const before = canonicalJson(args);
          const identity = identifyOperation(name, args, matcher);
          expect(
            identifyOperation(
              name,
              reorder(args, (keys) => [...keys].reverse()),
              matcher,
            ),
          ).toEqual(identity);
          expect(canonicalJson(args)).toBe(before);
          expect(identity.key === null || typeof identity.key === 'string').toBe(true);
        }),
        RUNS,
      ),
    );
  });

  it('R-1.2: a key field added at the top level never changes the operation; different tools never share one', () => {
    fc.assert(
      fc.property(
        tool,
        tool,
        fc.array(fc.tuple(key, hostile), { maxLength: 4 }).map(withOwn),
        hostile,
        (one, other, args, keyValue) => {
          const withKey = withOwn([
            ...Object.entries(args).filter(([k]) => !matcher.isKeyField(k)),
            ['idempotency_key', keyValue],
          ]);
          const plain = withOwn(Object.entries(args).filter(([k]) => !matcher.isKeyField(k)));
          expect(identifyOperation(one, withKey, matcher).opKey).toBe(identifyOperation(one, plain, matcher).opKey);
          if (one !== other)
            expect(identifyOperation(one, plain, matcher).opKey).not.toBe(identifyOperation(other, plain, matcher).opKey);
        },
      ),
      RUNS,
    );
  });

  it('R-1.2: with several key fields the key ignores the case and order of their names, and different values give different keys', () => {
    const ab = new KeyFieldMatcher(['order_ref', 'request-id']);
    const value = fc.oneof(fc.string({ unit: 'binary', maxLength: 5 }), fc.constantFrom('|', '\\', '\\|', 'a|', '|b'));
    const spell = fc.constantFrom('order_ref', 'ORDER_REF', 'orderRef', 'Order-Ref');
    const spellId = fc.constantFrom('request_id', 'requestId', 'REQUEST-ID', 'Request_Id');
    fc.assert(
      fc.property(
        value,
        value,
        value,
        value,
        spell,
        spell,
        spellId,
        spellId,
        fc.boolean(),
        (a1, b1, a2, b2, r1, r2, i1, i2, swap) => {
          const first = identifyOperation(
            't',
            withOwn([
              [r1, a1],
              [i1, b1],
            ]),
            ab,
          ).key;
          const entries: Array<[string, unknown]> = [
            [r2, a2],
            [i2, b2],
          ];
          const second = identifyOperation('t', withOwn(swap ? entries.reverse() : entries), ab).key;
          expect(first === second).toBe(a1 === a2 && b1 === b2);
        },
      ),
      RUNS,
    );
  });
});

type Event =
  | { kind: 'call'; tool: string; args: unknown; answer: 'ok' | 'reject' | 'timeout' | 'unavailable' | 'open'; deliver: boolean }
  | { kind: 'wait'; ms: number };

const TOOLS: Record<string, ToolClass> = {
  create_order: 'write',
  get_order: 'read',
  sync_ledger: 'unclassified',
  __proto__: 'write',
};
const event: fc.Arbitrary<Event> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      tool: fc.constantFrom(...Object.keys(TOOLS), 'constructor', 'toString'),
      args: anyArgs,
      answer: fc.constantFrom('ok', 'ok', 'reject', 'timeout', 'unavailable', 'open'),
      deliver: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 70_000 }) }) },
);
const scenario: fc.Arbitrary<ScenarioConfig> = fc.oneof(
  fc.constant({ mode: 'none' } as const),
  fc
    .constantFrom('F1', 'F2', 'F3', 'F4', 'F5')
    .map((id) => ({ mode: 'scenario', id, parameters: { retryAfterSeconds: 2 } }) as const),
  fc.constant({ mode: 'chaos', errorRate: 0.5 } as const),
);

const VERDICTS: Record<'ok' | 'reject' | 'timeout' | 'unavailable', ExecutionOutcome> = {
  ok: { kind: 'executed', answer: { content: [] } },
  reject: { kind: 'rejected' },
  timeout: { kind: 'unknown', reason: 'timeout' },
  unavailable: { kind: 'unavailable' },
};

/** Feeds the events to a fresh session; answers the final report text and the executions the upstream made. */
function play(config: ScenarioConfig, events: readonly Event[]): { document: string; executed: number } {
  const clock = new TestClock();
  const classes = new Map(Object.entries(TOOLS));
  const session = new EvaluationSession(
    { scenario: config, keyFields: DEFAULT_KEY_FIELDS },
    { classOf: (n) => classes.get(n) ?? 'unclassified', acceptsKey: () => false },
    clock,
    fixedRandom(0.3, 0.7, 0.1),
  );
  let executed = 0;
  for (const e of events) {
    if (e.kind === 'wait') {
      clock.advance(e.ms);
      continue;
    }
    const decision = session.receive(e.tool, e.args);
    if (decision.forward && e.answer !== 'open') {
      decision.forwarded();
      decision.answered(VERDICTS[e.answer]);
      if (e.answer === 'ok' && decision.callClass === 'write') executed++;
    }
    if (e.deliver) decision.delivered();
  }
  session.finish();
  const document = serializeDocument(session, {
    kind: 'proxy',
    harnessVersion: 'fuzz',
    status: 'finished',
    toolClassification: [],
  });
  return { document, executed };
}

describe('fuzz: a whole EvaluationSession fed hostile arguments', () => {
  it('R-13 / R-9.1: no throw, no pollution, deterministic, the report is valid JSON and counts exactly the executed writes', () => {
    withoutPollution(() =>
      fc.assert(
        fc.property(scenario, fc.array(event, { maxLength: 25 }), (config, events) => {
          const first = play(config, events);
          expect(play(config, events).document).toBe(first.document);
          const parsed = JSON.parse(first.document) as { report: { operations: Array<{ executions: number }> } };
          expect(parsed.report.operations.reduce((sum, op) => sum + op.executions, 0)).toBe(first.executed);
        }),
        { numRuns: Math.ceil(RUNS.numRuns * 1.5) },
      ),
    );
  });
});
