/**
 * The journal file adapter and its reader (docs/journal.md): a torn last line and
 * foreign lines are skipped (and said), a file that is not a journal is refused in one line, and the
 * writer never follows a planted link.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileJournal } from '../../../src/adapters/files/file-journal.js';
import { parseJournal, readJournal } from '../../../src/adapters/files/report-files/journal-reader.js';
import { tempFiles } from '../../support/report-docs.js';

const HEADER = '{"v":1,"event":"journal","at":1,"harnessVersion":"t","payloads":false}';
const OPENED = '{"v":1,"event":"opened","at":2,"session":"s","scenario":"scenario F1"}';
const call = (attempt: number, event: string) =>
  `{"v":1,"event":"${event}","at":${attempt * 10},"session":"s","attempt":${attempt},"tool":"create_order","class":"write","operation":1,"fault":null}`;

let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => files?.remove());

describe('journal reader', () => {
  it('a complete journal reads back every record, nothing skipped', () => {
    const text = [HEADER, OPENED, call(1, 'received'), call(1, 'forwarded'), ''].join('\n');
    expect(parseJournal(text)).toMatchObject({
      tornLastLine: false,
      skipped: 0,
      records: [{ event: 'journal' }, { event: 'opened' }, { event: 'received' }, { event: 'forwarded' }],
    });
  });

  it('a torn last line (no line feed: the writer was killed mid-line) is skipped, every complete line kept', () => {
    const full = [HEADER, OPENED, call(1, 'received'), call(1, 'forwarded')].join('\n');
    for (const cut of [3, 20, call(1, 'answered').length - 1]) {
      const contents = parseJournal(`${full}\n${call(1, 'answered').slice(0, cut)}`);
      expect(contents.tornLastLine).toBe(true);
      expect(contents.skipped).toBe(0);
      expect(contents.records.map((r) => r.event)).toEqual(['journal', 'opened', 'received', 'forwarded']);
    }
  });

  it('foreign lines (not JSON, another version, a wrong field type, an unknown event) are skipped and counted', () => {
    const text = [
      HEADER,
      'hello world',
      '{"v":2,"event":"received","at":1}',
      call(1, 'received').replace('"attempt":1', '"attempt":"1"'),
      call(1, 'received').replace('"class":"write"', '"class":"writes"'),
      '{"v":1,"event":"teleported","at":3,"session":"s"}',
      '[1,2]',
      call(1, 'received'),
      '',
    ].join('\n');
    const contents = parseJournal(text);
    expect(contents.skipped).toBe(6);
    expect(contents.records.map((r) => r.event)).toEqual(['journal', 'received']);
  });

  it('a file that is not a journal (no header first) is refused with one line', async () => {
    expect(() => parseJournal('{"verdict":"PASS"}\n', 'r.json')).toThrow(/^not a journal \(version 1\): r\.json/);
    expect(() => parseJournal('', 'empty')).toThrow(/not a journal/);
    await expect(readJournal('/nonexistent/journal.jsonl')).rejects.toThrow(
      /^journal cannot be read: \/nonexistent\/journal\.jsonl/,
    );
  });
});

describe('journal file', () => {
  const options = { payloads: false, harnessVersion: 't', now: () => 5, notice: () => undefined };

  it('R-9.4: a symbolic link at the journal path is refused, and the file it points at is untouched', async () => {
    files = tempFiles({ 'precious.txt': 'keep me\n' });
    symlinkSync(files.path('precious.txt'), files.path('journal.jsonl'));
    await expect(FileJournal.open(files.path('journal.jsonl'), options)).rejects.toThrow(
      /journal file is a symbolic link, refused/,
    );
    expect(readFileSync(files.path('precious.txt'), 'utf8')).toBe('keep me\n');
  });

  it('R-9.4: a journal path that is the report file by another spelling (the report is a link to it) is refused, untouched', async () => {
    files = tempFiles({ 'report.json': '{"verdict":"PASS"}\n' });
    symlinkSync(files.path('report.json'), files.path('link.json'));
    await expect(
      FileJournal.open(files.path('report.json'), { ...options, distinctFrom: [files.path('link.json')] }),
    ).rejects.toThrow(/^journal file is the same file as .*link\.json/);
    expect(readFileSync(files.path('report.json'), 'utf8')).toBe('{"verdict":"PASS"}\n');
    // Another file, or one that does not exist yet, is fine.
    const journal = await FileJournal.open(files.path('j.jsonl'), {
      ...options,
      distinctFrom: [files.path('link.json'), files.path('none')],
    });
    journal.close();
  });

  it('R-9.4: an existing journal file readable by others is made private (mode 600) when it is started afresh', async () => {
    files = tempFiles({ 'j.jsonl': 'old run\n' });
    chmodSync(files.path('j.jsonl'), 0o644);
    const journal = await FileJournal.open(files.path('j.jsonl'), { ...options, payloads: true });
    journal.close();
    expect(statSync(files.path('j.jsonl')).mode & 0o777).toBe(0o600);
  });

  it('a folder or a missing folder is refused in one line', async () => {
    files = tempFiles();
    mkdirSync(join(files.dir, 'sub'));
    await expect(FileJournal.open(join(files.dir, 'sub'), options)).rejects.toThrow(/journal file must be a regular file/);
    await expect(FileJournal.open(join(files.dir, 'nope', 'j.jsonl'), options)).rejects.toThrow(/journal folder does not exist/);
  });

  it('a new run starts the file afresh with its header; lines are appended in order, each a complete JSON line', async () => {
    files = tempFiles();
    writeFileSync(files.path('j.jsonl'), 'old run\n');
    const journal = await FileJournal.open(files.path('j.jsonl'), options);
    const session = journal.session('s', { scenario: 'scenario F1', report: '/r.json' });
    session.callEvent({
      step: 'received',
      at: 7,
      attempt: 1,
      tool: 'a"b\n',
      callClass: 'write',
      operation: 1,
      fault: 'F1',
      arguments: { secret: 'x' },
    });
    session.ended({ verdict: 'PASS', score: 100 });
    journal.close();
    const text = readFileSync(files.path('j.jsonl'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text).not.toContain('old run');
    expect(text).not.toContain('secret');
    expect(parseJournal(text)).toMatchObject({
      skipped: 0,
      tornLastLine: false,
      records: [
        { event: 'journal', payloads: false },
        { event: 'opened', report: '/r.json' },
        { event: 'received', tool: 'a"b\n', fault: 'F1' },
        { event: 'ended', verdict: 'PASS', score: 100 },
      ],
    });
  });

  it('a payload JSON cannot hold (nested too deeply) is written as a note, the line stays valid', async () => {
    files = tempFiles();
    const journal = await FileJournal.open(files.path('j.jsonl'), { ...options, payloads: true });
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    journal.session('s', { scenario: 'x' }).callEvent({
      step: 'received',
      at: 7,
      attempt: 1,
      tool: 't',
      callClass: 'read',
      operation: null,
      fault: null,
      arguments: deep,
    });
    journal.close();
    const received = parseJournal(readFileSync(files.path('j.jsonl'), 'utf8')).records[2];
    expect(received).toMatchObject({ event: 'received', arguments: { unserialisable: expect.any(String) } });
  });

  it('--redact: the fields are redacted at any depth in arguments and result, as in the recording, and the header lists them', async () => {
    files = tempFiles();
    const journal = await FileJournal.open(files.path('j.jsonl'), { ...options, payloads: true, redact: ['token'] });
    const session = journal.session('s', { scenario: 'x' });
    const event = { at: 7, attempt: 1, tool: 't', callClass: 'write' as const, operation: 1, fault: null };
    session.callEvent({ ...event, step: 'received', arguments: { token: 's3cret-a', keep: 1, deep: [{ token: 's3cret-b' }] } });
    session.callEvent({
      ...event,
      step: 'delivered',
      told: 'answer',
      result: { content: [{ type: 'text', text: 'ok' }], structuredContent: { token: 's3cret-c' } },
    });
    journal.close();
    const text = readFileSync(files.path('j.jsonl'), 'utf8');
    expect(text).not.toContain('s3cret');
    const records = parseJournal(text).records as unknown as Array<Record<string, unknown>>;
    expect(records[0]).toMatchObject({ event: 'journal', payloads: true, redacted: ['token'] });
    expect(records[2]).toMatchObject({ arguments: { token: '[REDACTED]', keep: 1, deep: [{ token: '[REDACTED]' }] } });
    expect(records[3]).toMatchObject({ result: { structuredContent: { token: '[REDACTED]' } } });
    // a forwarded request's params, result and error are redacted the same way.
    const again2 = await FileJournal.open(files.path('r.jsonl'), { ...options, payloads: true, redact: ['token'] });
    const requests = again2.session('s', { scenario: 'x' });
    const request = {
      at: 7,
      method: 'prompts/get',
      name: 'p',
      durationMs: 1,
      params: { name: 'p', arguments: { token: 's3cret-d' } },
    };
    requests.request({ ...request, outcome: 'result', answer: { result: { messages: [], token: 's3cret-e' } } });
    requests.request({
      ...request,
      outcome: 'error',
      code: -32602,
      answer: { error: { code: -32602, message: 'no', data: { token: 's3cret-f' } } },
    });
    again2.close();
    const requestText = readFileSync(files.path('r.jsonl'), 'utf8');
    expect(requestText).not.toContain('s3cret');
    const requestRecords = parseJournal(requestText).records as unknown as Array<Record<string, unknown>>;
    expect(requestRecords[2]).toMatchObject({ params: { arguments: { token: '[REDACTED]' } }, result: { token: '[REDACTED]' } });
    expect(requestRecords[3]).toMatchObject({ error: { code: -32602, data: { token: '[REDACTED]' } } });
    // Without --redact the header has no such field and the payloads are verbatim.
    const plain = await FileJournal.open(files.path('p.jsonl'), { ...options, payloads: true });
    plain.session('s', { scenario: 'x' }).callEvent({ ...event, step: 'received', arguments: { token: 'visible' } });
    plain.close();
    const again = readFileSync(files.path('p.jsonl'), 'utf8');
    expect(again).toContain('"token":"visible"');
    expect(JSON.parse(again.split('\n')[0]!)).not.toHaveProperty('redacted');
  });
});
