import { describe, expect, it, vi } from 'vitest';
import { LineFramer } from '../../../src/adapters/wire/line-framer.js';

describe('LineFramer', () => {
  it('R-8.7: lines split across chunks, several lines in one chunk and CRLF endings are reassembled', () => {
    const framer = new LineFramer(100);
    expect(framer.push(Buffer.from('{"a":'))).toEqual({ lines: [], overflowed: false });
    expect(framer.push(Buffer.from('1}\r\n{"b":2}\n{"c"'))).toEqual({ lines: ['{"a":1}', '{"b":2}'], overflowed: false });
    expect(framer.push(Buffer.from(':"é"}\n'))).toEqual({ lines: ['{"c":"é"}'], overflowed: false });
  });

  it('R-8.7: a UTF-8 byte order mark opening the stream is dropped (even split over chunks); later ones are kept', () => {
    const framer = new LineFramer(100);
    expect(framer.push(Buffer.from([0xef, 0xbb]))).toEqual({ lines: [], overflowed: false });
    expect(framer.push(Buffer.from([0xbf, ...Buffer.from('{"a":1}\r\n\uFEFF{"b":2}\n')]))).toEqual({
      lines: ['{"a":1}', '\uFEFF{"b":2}'],
      overflowed: false,
    });
  });

  it('R-8.7: end() gives the last line that had no newline, once; nothing after an overflow', () => {
    const framer = new LineFramer(10);
    expect(framer.push(Buffer.from('{"a":1}\n{"b"'))).toEqual({ lines: ['{"a":1}'], overflowed: false });
    expect(framer.push(Buffer.from(':2}\r')).lines).toEqual([]);
    expect(framer.end()).toBe('{"b":2}');
    expect(framer.end()).toBeUndefined();
    const overflowed = new LineFramer(3);
    overflowed.push(Buffer.from('12345'));
    expect(overflowed.end()).toBeUndefined();
  });

  it('R-1.3: a message over the limit overflows before its newline arrives, and the framer stays overflowed', () => {
    const framer = new LineFramer(10);
    expect(framer.push(Buffer.from('0123456789\n'))).toEqual({ lines: ['0123456789'], overflowed: false });
    expect(framer.push(Buffer.from('01234'))).toEqual({ lines: [], overflowed: false });
    expect(framer.push(Buffer.from('567890'))).toEqual({ lines: [], overflowed: true });
    expect(framer.push(Buffer.from('\n{}\n'))).toEqual({ lines: [], overflowed: true });
  });

  it('R-8.8: never buffers more than the limit and reports what an unfinished line holds', () => {
    const framer = new LineFramer(10);
    expect(framer.push(Buffer.from('123456')).overflowed).toBe(false);
    expect(framer.bufferedBytes).toBe(6);
    expect(framer.push(Buffer.from('78901')).overflowed).toBe(true);
    expect(framer.bufferedBytes).toBe(0);
  });

  it('a 9 MiB line in 64 KiB chunks is joined once: the bytes copied equal the line (linear, not quadratic)', () => {
    const framer = new LineFramer(10 * 1024 * 1024);
    const line = Buffer.alloc(9 * 1024 * 1024, 0x61);
    const concat = vi.spyOn(Buffer, 'concat');
    try {
      const lines: string[] = [];
      for (let offset = 0; offset < line.length; offset += 65536)
        lines.push(...framer.push(line.subarray(offset, offset + 65536)).lines);
      lines.push(...framer.push(Buffer.from('\n')).lines);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toHaveLength(line.length);
      const copied = concat.mock.calls.reduce((sum, [parts]) => sum + parts.reduce((n, part) => n + part.length, 0), 0);
      expect(concat).toHaveBeenCalledTimes(1);
      expect(copied).toBe(line.length);
    } finally {
      concat.mockRestore();
    }
  });
});
