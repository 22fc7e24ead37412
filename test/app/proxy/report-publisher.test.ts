import { describe, expect, it } from 'vitest';
import { ReportPublisher } from '../../../src/app/proxy/report-publisher.js';
import type { ReportDocument, ReportSink } from '../../../src/ports/report-sink.port.js';

/** A sink that records every document it was given, and can be made to fail. */
class RecordingSink implements ReportSink {
  readonly written: string[] = [];
  failWith: string | null = null;

  publish(document: ReportDocument): Promise<void> {
    if (this.failWith !== null) return Promise.reject(new Error(this.failWith));
    this.written.push(typeof document === 'string' ? document : document.join(''));
    return Promise.resolve();
  }
}

/** A publisher whose document is the current value of `state`. */
function setup() {
  const sink = new RecordingSink();
  const state = { value: 0 };
  const publisher = new ReportPublisher(sink, () => String(state.value));
  return { sink, state, publisher };
}

const checkPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ReportPublisher (R-9.2: the report is written before the answer goes out)', () => {
  it('resolves a request only after a document holding the state at the request was written', async () => {
    const { sink, state, publisher } = setup();
    state.value = 1;
    await publisher.request();
    expect(sink.written).toEqual(['1']);
    state.value = 2;
    await publisher.request(true);
    expect(sink.written).toEqual(['1', '2']);
  });

  it('coalesces: requests of one event-loop turn share one write that holds all of them', async () => {
    const { sink, state, publisher } = setup();
    const waits: Array<Promise<void>> = [];
    for (let i = 1; i <= 500; i++) {
      state.value = i;
      waits.push(publisher.request());
    }
    await Promise.all(waits);
    expect(sink.written).toEqual(['500']);
  });

  it('a "soon" request is written before the check phase; a pending check-phase write is joined, not doubled', async () => {
    const { sink, state, publisher } = setup();
    state.value = 1;
    let soonDone = false;
    const soon = publisher.request(true).then(() => (soonDone = true));
    await Promise.resolve();
    await Promise.resolve();
    await Promise.resolve();
    expect(sink.written).toEqual(['1']);
    await soon;
    expect(soonDone).toBe(true);

    state.value = 2;
    const late = publisher.request(false);
    state.value = 3;
    const joined = publisher.request(true);
    await Promise.resolve();
    expect(sink.written).toEqual(['1']); // nothing yet: the soon request joined the check-phase write
    await checkPhase();
    await Promise.all([late, joined]);
    expect(sink.written).toEqual(['1', '3']);
  });

  it("a failed write rejects every request waiting for it, with the sink's message", async () => {
    const { sink, publisher } = setup();
    sink.failWith = 'report file not writable: disk full';
    const results = await Promise.allSettled([publisher.request(), publisher.request(true)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason).toEqual(new Error('report file not writable: disk full'));
  });

  it('now() writes at once, after a write already in progress, and never before it', async () => {
    const order: string[] = [];
    let release!: () => void;
    const slowSink: ReportSink = {
      publish(document) {
        order.push(`start ${String(document)}`);
        if (document === 'first')
          return new Promise(
            (resolve) =>
              (release = () => {
                order.push('end first');
                resolve();
              }),
          );
        order.push(`end ${String(document)}`);
        return Promise.resolve();
      },
    };
    let doc = 'first';
    const publisher = new ReportPublisher(slowSink, () => doc);
    const first = publisher.now();
    await Promise.resolve();
    doc = 'final';
    const final = publisher.now();
    await checkPhase();
    expect(order).toEqual(['start first']);
    release();
    await Promise.all([first, final]);
    expect(order).toEqual(['start first', 'end first', 'start final', 'end final']);
  });
});
