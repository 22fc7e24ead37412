import { describe, expect, it } from 'vitest';
import { effectsSettings } from '../../../src/domain/effects/effects-settings.js';

describe('effects: the view settings from their flags', () => {
  it('no effects flag: no view', () => {
    expect(effectsSettings({})).toEqual({ ok: true, value: null });
  });

  it('a view with its key, path and expectations', () => {
    expect(
      effectsSettings({
        tool: { name: 'search_bookings', arguments: {} },
        path: 'data.items',
        key: 'guest,date',
        expect: ['guest=Ann Lee,date=2026-05-01'],
      }),
    ).toEqual({
      ok: true,
      value: {
        tool: 'search_bookings',
        arguments: {},
        path: ['data', 'items'],
        keyFields: ['guest', 'date'],
        expectations: [{ text: 'guest=Ann Lee,date=2026-05-01', values: ['Ann Lee', '2026-05-01'] }],
      },
    });
  });

  it('a view without --effect-key is one clear error', () => {
    expect(effectsSettings({ tool: { name: 'search_bookings', arguments: {} } })).toEqual({
      ok: false,
      error:
        '--effects-tool search_bookings needs --effect-key FIELDS: the record fields that make two records the same effect (e.g. guest,date)',
    });
  });

  it('a key, a path or an expectation without a view is one clear error', () => {
    expect(effectsSettings({ key: 'guest', expect: ['guest=a'] })).toEqual({
      ok: false,
      error:
        '--effect-key, --expect-effect needs --effects-tool TOOL[=JSON] or --effects-command CMD: the view that lists the records',
    });
    expect(effectsSettings({ path: 'a' })).toMatchObject({ ok: false, error: expect.stringMatching(/^--effects-path needs/) });
  });

  it('R-15.1: a command view with its arguments; one source only; --effects-arg needs the command', () => {
    expect(effectsSettings({ command: 'sh', args: ['-c', 'cat ledger.jsonl'], key: 'guest' })).toEqual({
      ok: true,
      value: { command: 'sh', args: ['-c', 'cat ledger.jsonl'], path: [], keyFields: ['guest'], expectations: [] },
    });
    expect(effectsSettings({ command: 'psql' })).toEqual({
      ok: false,
      error:
        '--effects-command psql needs --effect-key FIELDS: the record fields that make two records the same effect (e.g. guest,date)',
    });
    expect(effectsSettings({ command: 'sh', tool: { name: 't', arguments: {} }, key: 'a' })).toMatchObject({
      ok: false,
      error: 'give --effects-tool or --effects-command, not both: one view lists the records',
    });
    expect(effectsSettings({ args: ['-c'], key: 'a' })).toMatchObject({
      ok: false,
      error: '--effects-arg is an argument of --effects-command CMD: give --effects-command too',
    });
  });

  it('a bad key or expectation passes its own error on', () => {
    const tool = { name: 't', arguments: {} };
    expect(effectsSettings({ tool, key: 'a,a' })).toMatchObject({ ok: false, error: expect.stringContaining('named twice') });
    expect(effectsSettings({ tool, key: 'a,b', expect: ['a=1'] })).toMatchObject({
      ok: false,
      error: expect.stringContaining('b are missing'),
    });
  });
});
