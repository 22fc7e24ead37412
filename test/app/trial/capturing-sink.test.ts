import { describe, expect, it } from 'vitest';
import { CapturingSink } from '../../../src/app/trial/capturing-sink.js';
import { documentText, ReportWriter, type DocumentMeta } from '../../../src/domain/report/report-document.js';
import type { ReportDocument } from '../../../src/ports/report-sink.port.js';
import { Driver } from '../../support/session-driver.js';

const meta: DocumentMeta = { kind: 'proxy', harnessVersion: 't', status: 'running', toolClassification: [] };

describe('CapturingSink: the document it keeps for the run file', () => {
  it('R-9.1: a kept report does not change when the writer builds the next one (the publish of which failed)', async () => {
    let fail = false;
    const sink = new CapturingSink({
      publish: (_document: ReportDocument) => (fail ? Promise.reject(new Error('disk full')) : Promise.resolve()),
    });
    const d = new Driver();
    const writer = new ReportWriter(d.session);
    for (let i = 0; i < 3; i++) d.call('create_booking', { guest: `g${i}` });
    const first = writer.document(meta);
    const firstText = documentText(first);
    await sink.publish(first);
    // The first operation is called again with a long key: its entry grows in place in the writer's bytes.
    d.call('create_booking', { guest: 'g0', idempotency_key: 'k'.repeat(40) });
    fail = true;
    await expect(sink.publish(writer.document(meta))).rejects.toThrow('disk full');
    expect(sink.last).toBe(firstText);
  });
});
