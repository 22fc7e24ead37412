import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatFatal } from '../../src/cli/errors.js';
import { terminalSafe, writeNotice } from '../../src/cli/io.js';

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

  it('structured logs: NDJSON through terminalSafe stays valid JSON with the same values; UTF-8 split across chunks is joined', () => {
    const out = new PassThrough();
    const text = collect(out);
    const safe = terminalSafe(out);
    const record = JSON.stringify({ level: 30, msg: 'tool get\u200b_orders \u009b\u202e \u00e9' });
    const bytes = Buffer.from(`${record}\n${record}\n`);
    const cut = bytes.indexOf(Buffer.from('\u00e9')) + 1; // inside the two bytes of é
    safe.write(bytes.subarray(0, cut));
    safe.write(bytes.subarray(cut));
    safe.write(`${record}\n`);
    const lines = text().split('\n');
    expect(lines).toHaveLength(4);
    for (const line of lines.slice(0, 3)) {
      expect(line).not.toMatch(/[\u0080-\u009f\u200b\u202e]/);
      expect(JSON.parse(line)).toEqual(JSON.parse(record));
    }
  });
});
