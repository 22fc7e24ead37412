/**
 * What crosses the compiled proxy as a real process: the exact bytes of a `tools/call` —
 * an own `__proto__` argument and the request `_meta` — written to the proxy's real stdin reach the real
 * upstream process's stdin unchanged, and a malformed line is answered on the real stdout while the
 * session goes on. The upstream's ledger is the ground truth for what executed. Everything else that
 * crosses the proxy (tool lists, result extras, upstream errors, audit tools, warnings, `--listen`
 * bounds) runs with the whole CLI in-process in `test/integration/proxy/transports-forwarding.test.ts`.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { executions } from './fixtures/lib/ledger.mjs';
import { FIXTURES } from '../test/support/proxy-harness.js';
import { rawText, resultOf, spawnProxy, type RawProxy } from '../test/support/raw-proxy.js';

const COUNTING = ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'counting-server.mjs')];

let proxy: RawProxy | undefined;
afterEach(async () => {
  await proxy?.dispose();
  proxy = undefined;
});

describe('R-8.5: verbatim forwarding through the compiled proxy process', () => {
  it('R-8.5 / R-13: an own __proto__ argument and the request _meta reach the upstream byte for byte; a non-JSON line gets -32700 and the session goes on; stdin EOF → exit 0', async () => {
    const p = (proxy = spawnProxy(COUNTING, { env: { FIXTURE_ECHO_RAW: '1' } }));
    await p.initialize();
    const params =
      '{"name":"create_order","arguments":{"__proto__":{"polluted":true},"item":"pen","nested":{"__proto__":[1]},"idempotency_key":"k-1"},' +
      '"_meta":{"progressToken":"tok-1","example.com/trace":"abc"}}';
    p.raw.send(`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":${params}}`);
    const result = resultOf(await p.response(41));
    expect(rawText(result)).toBe(params);
    const [entry] = executions(p.ledger(), 'create_order');
    expect(Object.hasOwn(entry!.arguments as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();

    p.raw.send('{"jsonrpc":"2.0","id":5,"method":"tools/call",');
    expect(await p.response(null)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const read = '{"name":"get_order","arguments":{"order_id":"o-1"}}';
    p.raw.send(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":${read}}`);
    expect(rawText(resultOf(await p.response(42)))).toBe(read);
    expect(executions(p.ledger()).map((e) => e.tool)).toEqual(['create_order', 'get_order']);
    expect(await p.stop()).toEqual({ code: 0, signal: null });
    expect(p.report().status).toBe('finished');
  });
});
