/**
 * `--otel`'s flags and environment (docs/traces.md): where the spans go — the flag, then the traces
 * endpoint variable as it is, then the generic one with /v1/traces added, then a local collector —, the
 * service's name, the payload consent, and one clear line for anything wrong. The end line never prints
 * an endpoint's credentials or query.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TRACES_ENDPOINT, parseOtelFlags, printableEndpoint } from '../../src/cli/otel-flags.js';
import { traceLine } from '../../src/cli/otel-run.js';
import { UsageError } from '../../src/cli/errors.js';

/** `--otel` as `readArgv` reads a bare switch. */
const ON = { otel: ['on'] };

describe('parseOtelFlags', () => {
  it('is null without --otel: nothing is exported', () => {
    expect(parseOtelFlags({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBeNull();
  });

  it.each([
    [{}, {}, DEFAULT_TRACES_ENDPOINT],
    [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, 'http://collector:4318/v1/traces'],
    [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/base/' }, 'http://collector:4318/base/v1/traces'],
    [
      {},
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:1', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b:2/custom/path' },
      'https://b:2/custom/path',
    ],
    [
      { 'otel-endpoint': ['http://flag:4318'] },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:2/x' },
      'http://flag:4318/v1/traces',
    ],
    [{ 'otel-endpoint': ['http://flag:4318/v1/traces'] }, {}, 'http://flag:4318/v1/traces'],
  ])('endpoint %j with %j → %s', (flags, env, endpoint) => {
    expect(parseOtelFlags({ ...ON, ...flags }, env)?.endpoint).toBe(endpoint);
  });

  it('names the service from OTEL_SERVICE_NAME, cuonztech-agent-harness by default; payloads only when asked', () => {
    expect(parseOtelFlags(ON, {})).toMatchObject({ serviceName: 'cuonztech-agent-harness', payloads: false });
    expect(parseOtelFlags({ ...ON, 'otel-payloads': ['on'] }, { OTEL_SERVICE_NAME: 'shop-agent' })).toMatchObject({
      serviceName: 'shop-agent',
      payloads: true,
    });
  });

  it.each([
    [{ 'otel-endpoint': ['http://x:1'] }, {}, '--otel-endpoint is for --otel: give --otel too'],
    [{ 'otel-payloads': ['on'] }, {}, '--otel-payloads is for --otel: give --otel too'],
    [{ otel: ['yes'] }, {}, 'flag --otel must be on or off, got "yes"'],
    [{ ...ON, 'otel-payloads': ['yes'] }, {}, 'flag --otel-payloads must be on or off, got "yes"'],
    [{ ...ON, 'otel-endpoint': ['ftp://x'] }, {}, 'flag --otel-endpoint must be an http(s) URL'],
    [
      { ...ON, 'otel-endpoint': ['http://user:pw@x:1'] },
      {},
      'must not contain credentials: put them in OTEL_EXPORTER_OTLP_HEADERS',
    ],
    [ON, { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL'],
  ])('refuses %j (env %j)', (flags, env, message) => {
    expect(() => parseOtelFlags(flags, env)).toThrow(UsageError);
    expect(() => parseOtelFlags(flags, env)).toThrow(message);
  });
});

describe('the end line', () => {
  it('says how many spans went where, and the drops with their cause', () => {
    expect(traceLine({ endpoint: 'http://c:4318/v1/traces', ended: 5, exported: 5, dropped: 0 })).toBe(
      'traces: 5 spans exported to http://c:4318/v1/traces',
    );
    expect(
      traceLine({ endpoint: 'http://c:4318/v1/traces', ended: 5, exported: 2, dropped: 3, lastError: 'connect ECONNREFUSED' }),
    ).toBe('traces: 2 of 5 spans exported to http://c:4318/v1/traces; 3 dropped (connect ECONNREFUSED)');
  });

  it('never prints credentials or a query of the endpoint', () => {
    expect(printableEndpoint('https://user:secret@c.example:4318/v1/traces?token=abc#x')).toBe(
      'https://c.example:4318/v1/traces',
    );
  });
});
