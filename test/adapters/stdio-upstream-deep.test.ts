import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { StdioUpstreamSide } from '../../src/adapters/stdio-upstream/index.js';

const lineServer = join(fileURLToPath(new URL('../fixtures/upstream/', import.meta.url)), 'line-server.mjs');

it('R-13: arguments too deep to serialise are not sent (not-sent, not executed) and the connection survives', async () => {
  const side = new StdioUpstreamSide({ command: process.execPath, args: [lineServer], env: {}, clientName: 't', clientVersion: '0', graceMs: 300 });
  try {
    await side.connect();
    const deep = JSON.parse('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)) as unknown;
    const outcome = await side.callTool({ name: 'echo', arguments: { deep } }, { timeoutMs: 5000 });
    expect(outcome.kind).toBe('not-sent');
    const next = await side.callTool({ name: 'echo', arguments: { n: 1 } }, { timeoutMs: 5000 });
    expect(next.kind).toBe('result');
  } finally {
    await side.close();
  }
});
