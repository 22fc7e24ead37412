import { describe, expect, it } from 'vitest';
import { errorFirstLine, errorMessage } from '../../src/domain/error-message.js';

describe('the text of a thrown value', () => {
  it("an Error gives its message; anything else thrown gives String(value); the first line stops at the first '\\n'", () => {
    expect(errorMessage(new TypeError('bad input'))).toBe('bad input');
    expect(errorMessage('plain text')).toBe('plain text');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
    expect(errorFirstLine(new Error('first\nsecond'))).toBe('first');
    expect(errorFirstLine('')).toBe('');
  });
});
