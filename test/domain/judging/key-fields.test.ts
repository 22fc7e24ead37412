import { describe, expect, it } from 'vitest';
import {
  DEFAULT_KEY_FIELDS,
  KeyFieldMatcher,
  NON_OBJECT_ARGUMENTS_KEY,
  normaliseFieldName,
  schemaKeyFields,
  splitArguments,
} from '../../../src/domain/judging/key-fields.js';
import { identifyOperation } from '../../../src/domain/judging/operation.js';
import { Driver } from '../../support/session-driver.js';

const defaults = new KeyFieldMatcher(DEFAULT_KEY_FIELDS);

describe('key fields', () => {
  it('R-1.2: the default key field is idempotency_key', () => {
    expect(DEFAULT_KEY_FIELDS).toEqual(['idempotency_key']);
  });

  it('R-1.2: normalisation lower-cases and drops - and _', () => {
    expect(normaliseFieldName('Idempotency-Key_X')).toBe('idempotencykeyx');
  });

  it.each(['idempotency_key', 'Idempotency-Key', 'IDEMPOTENCY_KEY', 'idempotencyKey', 'idempotency-key'])(
    'R-1.2: %s matches idempotency_key',
    (name) => {
      expect(defaults.isKeyField(name)).toBe(true);
    },
  );

  it.each(['idempotency', 'key', 'idempotency_key_2', 'request_id', ''])('R-1.2: %j is not a key field', (name) => {
    expect(defaults.isKeyField(name)).toBe(false);
  });

  it('R-1.2: --key-fields replaces the list', () => {
    const matcher = new KeyFieldMatcher(['request_id', 'Client-Token']);
    expect(matcher.isKeyField('requestId')).toBe(true);
    expect(matcher.isKeyField('client_token')).toBe(true);
    expect(matcher.isKeyField('idempotency_key')).toBe(false);
  });

  it('R-1.2: a configured name that is empty after normalisation matches nothing', () => {
    const matcher = new KeyFieldMatcher(['', '-', '_']);
    expect(matcher.isKeyField('')).toBe(false);
    expect(matcher.isKeyField('_')).toBe(false);
  });
});

describe('splitArguments', () => {
  it('R-1.2: top-level key fields are split off; the rest identifies the operation', () => {
    const split = splitArguments({ date: '2025-01-01', idempotencyKey: 'k1', guests: 2 }, defaults);
    expect({ ...split.operationArgs }).toEqual({ date: '2025-01-01', guests: 2 });
    expect(split.keys).toEqual([{ field: 'idempotencyKey', value: 'k1' }]);
  });

  it('R-1.2: meta.idempotency_key is not a key field', () => {
    const split = splitArguments({ meta: { idempotency_key: 'k1' } }, defaults);
    expect(split.keys).toEqual([]);
    expect({ ...split.operationArgs }).toEqual({ meta: { idempotency_key: 'k1' } });
  });

  it('R-1.2: non-string key values are kept as their JSON text', () => {
    const split = splitArguments({ idempotency_key: 42, 'Idempotency-Key': { b: 1, a: [true] } }, defaults);
    expect(split.keys).toEqual([
      { field: 'idempotency_key', value: '42' },
      { field: 'Idempotency-Key', value: '{"a":[true],"b":1}' },
    ]);
  });

  it('R-1.2: undefined and null arguments give an empty operation', () => {
    for (const args of [undefined, null]) {
      const split = splitArguments(args, defaults);
      expect(Object.keys(split.operationArgs)).toEqual([]);
      expect(split.keys).toEqual([]);
    }
  });

  it('R-1.2: arrays and primitives stay distinct under one synthetic key', () => {
    for (const args of [['a'], 'text', 7, false]) {
      const split = splitArguments(args, defaults);
      expect(Object.keys(split.operationArgs)).toEqual([NON_OBJECT_ARGUMENTS_KEY]);
      expect(split.operationArgs[NON_OBJECT_ARGUMENTS_KEY]).toEqual(args);
    }
  });

  it('R-1.2: an own __proto__ key is kept as data and no prototype is touched', () => {
    const args = JSON.parse('{"__proto__": {"polluted": true}, "idempotency_key": "k", "x": 1}') as unknown;
    const split = splitArguments(args, defaults);
    expect(Object.keys(split.operationArgs)).toEqual(['__proto__', 'x']);
    expect(Object.getOwnPropertyDescriptor(split.operationArgs, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(split.operationArgs)).toBeNull();
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(split.keys).toEqual([{ field: 'idempotency_key', value: 'k' }]);
  });

  it('R-1.2: the input object is not changed', () => {
    const args = { idempotency_key: 'k', a: 1 };
    splitArguments(args, defaults);
    expect(args).toEqual({ idempotency_key: 'k', a: 1 });
  });
});

describe('schemaKeyFields', () => {
  it('R-1.2: lists the top-level schema properties that are key fields', () => {
    const schema = {
      type: 'object',
      properties: { date: { type: 'string' }, idempotencyKey: { type: 'string' }, meta: { properties: { idempotency_key: {} } } },
    };
    expect(schemaKeyFields(schema, defaults)).toEqual(['idempotencyKey']);
  });

  it.each([undefined, null, 'schema', 42, [], { properties: 'x' }, { properties: [] }, { properties: null }, {}])(
    'R-1.2: a garbage schema %j gives no key fields',
    (schema) => {
      expect(schemaKeyFields(schema, defaults)).toEqual([]);
    },
  );

  it('R-1.2: a schema property named __proto__ is read as data', () => {
    const schema = JSON.parse('{"properties": {"__proto__": {}, "idempotency_key": {}}}') as unknown;
    expect(schemaKeyFields(schema, defaults)).toEqual(['idempotency_key']);
  });
});

describe('identifyOperation: the operation texts', () => {
  it('R-1.1: the operation key is the tool as JSON, a colon and the canonical arguments without key fields, which are the preview', () => {
    const identity = identifyOperation('create_order', { z: [2, { b: 1, a: 'é"' }], idempotency_key: 'k', a: null }, defaults);
    expect(identity.canonicalArgs).toBe('{"a":null,"z":[2,{"a":"é\\"","b":1}]}');
    expect(identity.opKey).toBe(`"create_order":${identity.canonicalArgs}`);
    expect(identifyOperation('a"b', {}, defaults)).toMatchObject({ opKey: '"a\\"b":{}', canonicalArgs: '{}' });
  });
});

describe('identifyOperation: the key of a call with several key fields', () => {
  const ab = new KeyFieldMatcher(['a', 'b']);
  const keyOf = (args: Record<string, unknown>) => identifyOperation('create_order', args, ab).key;

  it('R-1.2: the same key values under field names in another case are the same key (B before a, or a before b)', () => {
    expect(keyOf({ x: 1, B: '2', a: '1' })).toBe(keyOf({ x: 1, a: '1', b: '2' }));
    expect(keyOf({ x: 1, b: '2', A: '1' })).toBe(keyOf({ x: 1, a: '1', B: '2' }));
  });

  it('R-1.2: different key values are never the same key, whatever "|" they contain', () => {
    expect(keyOf({ a: 'x|y', b: 'z' })).not.toBe(keyOf({ a: 'x', b: 'y|z' }));
    expect(keyOf({ a: 'x\\', b: '|z' })).not.toBe(keyOf({ a: 'x\\|', b: 'z' }));
  });

  it('R-1.2: one key field keeps its value as the key, several are joined with "|" (values escaped)', () => {
    expect(identifyOperation('t', { idempotency_key: 'k-1' }, defaults).key).toBe('k-1');
    expect(keyOf({ a: 'k1', b: 'k2' })).toBe('k1|k2');
    expect(keyOf({ a: 'x|y' })).not.toBe(keyOf({ a: 'x', b: 'y' }));
    expect(keyOf({ a: 'x|y' })).toBe('x\\|y');
  });

  it('R-1.2/R-2.4: a retry with the same keys under a field name in another case reports keyUse "same"', () => {
    const d = new Driver({ mode: 'none' }, undefined, { keyFields: ['a', 'b'] });
    d.call('create_booking', { guest: 'Ada', B: '2', a: '1' });
    d.call('create_booking', { guest: 'Ada', a: '1', b: '2' });
    expect(d.report().violations).toMatchObject([{ type: 'DUPLICATE_EXECUTION', duplicate: { keyUse: 'same' } }]);
  });

  it('R-1.2/R-2.4: a retry with other keys that join to the same text reports keyUse "new"', () => {
    const d = new Driver({ mode: 'none' }, undefined, { keyFields: ['a', 'b'] });
    d.call('create_booking', { guest: 'Ada', a: 'x|y', b: 'z' });
    d.call('create_booking', { guest: 'Ada', a: 'x', b: 'y|z' });
    expect(d.report().violations).toMatchObject([{ type: 'DUPLICATE_EXECUTION', duplicate: { keyUse: 'new' } }]);
  });
});
