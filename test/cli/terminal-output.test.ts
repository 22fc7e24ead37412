import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatFatal } from '../../src/cli/errors.js';
import { createLogger } from '../../src/adapters/logging/logger.js';
import { writeNotice } from '../../src/cli/io.js';

function collect(stream: PassThrough): () => string {
  let text = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  return () => text;
}

describe("what the CLI prints on the operator's terminal", () => {
  it("R-8.7: a notice carrying an upstream's stderr line shows ESC, OSC, CR and bidi visibly, in one line", () => {
    const out = new PassThrough();
    const text = collect(out);
    writeNotice(out, '  upstream stderr: \u001b[2J\u001b]0;owned\u0007\r[cuonztech-agent-harness] proxy ready: forged \u202e');
    expect(text()).toBe(
      '[cuonztech-agent-harness]   upstream stderr: \\u001b[2J\\u001b]0;owned\\u0007\\u000d[cuonztech-agent-harness] proxy ready: forged \\u202e\n',
    );
  });

  it("R-8.9: a fatal error line escapes what came from outside (a start-up error with the upstream's last stderr line)", () => {
    const line = formatFatal(new Error('upstream exited before the MCP handshake (code 3): \u001b[31mboom\u009b\u200b'));
    expect(line).toBe(
      '[cuonztech-agent-harness] error: upstream exited before the MCP handshake (code 3): \\u001b[31mboom\\u009b\\u200b',
    );
  });

  it('log records (--log-level) are notice lines too: hostile bytes and line feeds in a field are escaped, one record one line', async () => {
    const out = new PassThrough();
    const text = collect(out);
    const logger = await createLogger('debug', (line) => writeNotice(out, line));
    logger.warn(
      { tool: 'get\u200b_orders', stderr: 'x\n[cuonztech-agent-harness] proxy ready: forged\u001b[2J', count: 2 },
      'odd \u202e tool',
    );
    logger.debug({}, 'no fields');
    expect(text()).toBe(
      '[cuonztech-agent-harness] warn: odd \\u202e tool (tool: get\\u200b_orders, stderr: x\\u000a[cuonztech-agent-harness] proxy ready: forged\\u001b[2J, count: 2)\n' +
        '[cuonztech-agent-harness] debug: no fields\n',
    );
  });
});
