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
      error: '--effect-key, --expect-effect needs --effects-tool TOOL[=JSON]: the read tool that lists the records',
    });
    expect(effectsSettings({ path: 'a' })).toMatchObject({ ok: false, error: expect.stringMatching(/^--effects-path needs/) });
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
