/**
 * The reason a failed process's stderr gives: the upstream that did not start, the agent program that
 * failed.
 */
import { describe, expect, it } from 'vitest';
import { nodeModuleNotFound } from '../../support/node-crash.js';
import { stderrReasonLines } from '../../../src/domain/text/stderr-reason.js';

const NODE_MODULE_NOT_FOUND = nodeModuleNotFound('/no/such/agent.js');

describe('stderrReasonLines', () => {
  it("Node's uncaught error: its Error line alone, not the block and the version banner after it", () => {
    expect(stderrReasonLines(NODE_MODULE_NOT_FOUND, 3)).toEqual(["Error: Cannot find module '/no/such/agent.js'"]);
    expect(stderrReasonLines(NODE_MODULE_NOT_FOUND)).toEqual(["Error: Cannot find module '/no/such/agent.js'"]);
  });

  it('the first error line wins (Python prints its error last, after the traceback)', () => {
    expect(stderrReasonLines('Traceback (most recent call last):\n  File "a.py", line 1\nKeyError: \'x\'\n', 3)).toEqual([
      "KeyError: 'x'",
    ]);
    expect(stderrReasonLines('error: first\nfatal: second\n')).toEqual(['error: first']);
  });

  it('no line reads like an error: the last lines asked for, blank lines and the version banner left out', () => {
    expect(stderrReasonLines('starting\nboom: cannot reach the model\n', 3)).toEqual([
      'starting',
      'boom: cannot reach the model',
    ]);
    expect(stderrReasonLines('a\n\nb\nc\nd\n\nNode.js v20.1.0\n', 3)).toEqual(['b', 'c', 'd']);
    expect(stderrReasonLines('boom\n\nNode.js v20.1.0\n')).toEqual(['boom']);
    expect(stderrReasonLines('  \n\n', 3)).toEqual([]);
    expect(stderrReasonLines('', 3)).toEqual([]);
  });
});
