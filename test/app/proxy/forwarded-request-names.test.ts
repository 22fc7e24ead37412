/**
 * what a forwarded request names, for its journal line (`namedBy`): a resource's URI or a prompt's
 * name, taken only from the fields the MCP schema gives them, never guessed from other methods or types.
 */
import { describe, expect, it } from 'vitest';
import { namedBy } from '../../../src/app/proxy/forwarded-request.js';

describe('R-17.1: the name of a forwarded request in the journal', () => {
  it('resources/read, subscribe and unsubscribe name their uri; prompts/get its name; a completion its ref', () => {
    for (const method of ['resources/read', 'resources/subscribe', 'resources/unsubscribe'])
      expect(namedBy(method, { uri: 'file:///a', name: 'not this' })).toEqual({ uri: 'file:///a' });
    expect(namedBy('prompts/get', { name: 'greet', arguments: { who: 'x' } })).toEqual({ name: 'greet' });
    expect(
      namedBy('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } }),
    ).toEqual({
      name: 'greet',
    });
    expect(namedBy('completion/complete', { ref: { type: 'ref/resource', uri: 'file:///{id}' } })).toEqual({
      uri: 'file:///{id}',
    });
  });

  it('nothing for the lists and logging/setLevel, for a field that is not a string, or an inherited one', () => {
    expect(namedBy('resources/list', { cursor: 'c2' })).toEqual({});
    expect(namedBy('logging/setLevel', { level: 'debug' })).toEqual({});
    expect(namedBy('resources/read', { uri: 7 })).toEqual({});
    expect(namedBy('completion/complete', { ref: 'file:///a' })).toEqual({});
    expect(namedBy('prompts/get', Object.create({ name: 'inherited' }) as Record<string, unknown>)).toEqual({});
  });
});
