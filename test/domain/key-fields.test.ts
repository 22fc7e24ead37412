import { describe, expect, it } from 'vitest';
import {
  DEFAULT_KEY_FIELDS,
  KeyFieldMatcher,
  NON_OBJECT_ARGUMENTS_KEY,
  normaliseFieldName,
  schemaKeyFields,
  splitArguments,
} from '../../src/domain/key-fields.js';

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
