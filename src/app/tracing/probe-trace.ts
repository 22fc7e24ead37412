/**
 * `probe --otel` (docs/traces.md): a root span for the probe run, one span per probe of a tool (`probe P2
 * create_payment`) with its label as an evaluation event (`idempotency_probe`), under it the probe's
 * session — the same {@link SessionTrace} as `proxy --otel`: its calls as server and client spans, the
 * faulted one marked — and at the end each tool's verdict as an `idempotency` evaluation event on the root.
 */
import type { ScenarioConfig } from '../../domain/faults/fault-plan.js';
import type { ProbeReport, ProbeRow } from '../../ports/shapes/probe-results.js';
import type { TraceSpan, Tracer } from '../../ports/tracer.port.js';
import { evaluationEvent } from './evaluation-event.js';
import { SessionTrace } from './session-trace.js';

/** One probe of one tool: its span and its session's trace. */
export interface ProbeRunTrace {
  session: SessionTrace;
  /** The probe's label (and why) on its span, which ends. */
  end(row: ProbeRow): void;
}

export class ProbeTrace {
  readonly span: TraceSpan;
  private probes = 0;

  constructor(
    private readonly tracer: Tracer,
    private readonly payloads: boolean,
  ) {
    this.span = tracer.startSpan('cuonztech.probe', { kind: 'internal' });
  }

  probe(tool: string, probe: string, scenario: ScenarioConfig): ProbeRunTrace {
    const span = this.tracer.startSpan(`probe ${probe} ${tool}`, {
      kind: 'internal',
      parent: this.span,
      attributes: { 'cuonztech.probe.id': probe, 'gen_ai.tool.name': tool },
    });
    const session = new SessionTrace(this.tracer, {
      ordinal: ++this.probes,
      scenario,
      payloads: this.payloads,
      parent: span,
    });
    return {
      session,
      end: (row) => {
        span.setAttributes({ 'cuonztech.probe.label': row.label });
        evaluationEvent(span, 'idempotency_probe', row.label, row.reason);
        span.end();
      },
    };
  }

  /** The probe run has ended: each tool's verdict on the root span; `failure`: it could not run. */
  end(report: ProbeReport | null, failure?: string): void {
    for (const tool of report?.tools ?? [])
      evaluationEvent(this.span, 'idempotency', tool.verdict, tool.reason, null, { 'gen_ai.tool.name': tool.tool });
    if (report?.server != null) this.span.setAttributes({ 'cuonztech.probe.server': report.server });
    if (failure !== undefined) this.span.fail('probe_error', failure);
    this.span.end();
  }
}
