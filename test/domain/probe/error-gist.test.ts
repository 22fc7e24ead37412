import { describe, expect, it } from 'vitest';
import { errorGist } from '../../../src/domain/probe/error-gist.js';

// The text the MCP SDK 1.32 answers for arguments its input schema refuses (isError result).
const SDK_VALIDATION =
  'MCP error -32602: Input validation error: Invalid arguments for tool create_booking: [\n  {\n    "expected": "string",\n' +
  '    "code": "invalid_type",\n    "path": [\n      "guest"\n    ],\n    "message": "Invalid input: expected string, received undefined"\n  }\n]';

describe('issue 42: a probe line keeps the part that says which argument', () => {
  it('an SDK validation error is told as path: message, within the limit', () => {
    expect(errorGist(SDK_VALIDATION, 200)).toBe(
      'MCP error -32602: Input validation error: Invalid arguments for tool create_booking: guest: Invalid input: expected string, received undefined',
    );
  });

  it('a long text is cut between words, never mid-word', () => {
    const text = `${'word '.repeat(50)}argument guest is missing`;
    const gist = errorGist(text, 100);
    expect(gist.endsWith('word…')).toBe(true);
    expect(gist.length).toBeLessThanOrEqual(101);
    expect(errorGist('short', 200)).toBe('short');
  });

  it('text that only looks like JSON is kept as it is', () => {
    expect(errorGist('failed: [not json]', 200)).toBe('failed: [not json]');
    expect(errorGist('failed: [1, 2]', 200)).toBe('failed: [1, 2]');
  });
});
