/**
 * What the operator is shown of an upstream's stderr when it did not start or went away: the line that
 * says why, not the version banner Node prints last.
 */
import { describe, expect, it } from 'vitest';
import { nodeModuleNotFound } from '../../support/node-crash.js';
import { StderrTail } from '../../../src/adapters/stdio-upstream/stderr-tail.js';

const NODE_MODULE_NOT_FOUND = nodeModuleNotFound('/no/such/server.js');

function tailOf(...chunks: string[]): StderrTail {
  const tail = new StderrTail();
  for (const chunk of chunks) tail.append(chunk);
  return tail;
}

describe('StderrTail.reasonLine', () => {
  it("Node's uncaught error: its Error line, not the source excerpt or the version banner", () => {
    const tail = tailOf(NODE_MODULE_NOT_FOUND);
    expect(tail.lastLine()).toBe('Node.js v20.20.2');
    expect(tail.reasonLine()).toBe("Error: Cannot find module '/no/such/server.js'");
  });

  it('an error line that scrolled out of the tail is still found in the head', () => {
    const stack = Array.from({ length: 40 }, (_, i) => `    at frame${i} (file.js:${i}:1)`).join('\n');
    const tail = tailOf('TypeError: tools is not iterable\n', `${stack}\n`, 'Node.js v20.20.2\n');
    expect(tail.tail()).not.toContain('TypeError');
    expect(tail.reasonLine()).toBe('TypeError: tools is not iterable');
  });

  it("Python's traceback: its last line names the error", () => {
    const tail = tailOf(
      'Traceback (most recent call last):\n  File "server.py", line 1, in <module>\n',
      "ModuleNotFoundError: No module named 'mcp'\n",
    );
    expect(tail.reasonLine()).toBe("ModuleNotFoundError: No module named 'mcp'");
  });

  it('no line reads like an error: the last line (but not a version banner); nothing written: empty', () => {
    expect(tailOf('starting\ncannot open database /x.db\n').reasonLine()).toBe('cannot open database /x.db');
    expect(tailOf('boom\n\nNode.js v20.1.0\n').reasonLine()).toBe('boom');
    expect(tailOf('').reasonLine()).toBe('');
  });
});
