/**
 * `--otel`'s wiring, shared by the commands that export traces: the OpenTelemetry adapter is imported only
 * here, only when `--otel` is given (so a run without it never loads the packages), and its last line —
 * how many spans went where, and how many were dropped — is told once at the end. Never the headers.
 */
import type { TraceSummary, Tracer } from '../ports/tracer.port.js';
import { HARNESS_VERSION, PROGRAM_NAME } from '../version.js';
import { printableEndpoint, type OtelSettings } from './otel-flags.js';

/** How long the end waits for the last batch of spans. */
export const TRACE_SHUTDOWN_MS = 2_000;

/** The tracer `--otel` asks for; undefined without it (nothing loaded). */
export async function startTracer(settings: OtelSettings | null): Promise<Tracer | undefined> {
  if (settings === null) return undefined;
  const { OtelTracer } = await import('../adapters/otel/otel-tracer.js');
  return new OtelTracer({
    endpoint: settings.endpoint,
    serviceName: settings.serviceName,
    serviceVersion: HARNESS_VERSION,
    scope: PROGRAM_NAME,
  });
}

/** `traces: 12 spans exported to http://localhost:4318/v1/traces` (and the drops, when there were). */
export function traceLine(summary: TraceSummary): string {
  const where = printableEndpoint(summary.endpoint);
  const spans = (n: number) => `${n} span${n === 1 ? '' : 's'}`;
  if (summary.dropped === 0) return `traces: ${spans(summary.exported)} exported to ${where}`;
  const why = summary.lastError ?? 'the export queue was full';
  return `traces: ${summary.exported} of ${spans(summary.ended)} exported to ${where}; ${summary.dropped} dropped (${why})`;
}

/** Exports what is left (at most {@link TRACE_SHUTDOWN_MS}) and says so in one line. */
export async function stopTracer(tracer: Tracer | undefined, notice: (line: string) => void): Promise<void> {
  if (tracer === undefined) return;
  notice(traceLine(await tracer.shutdown(TRACE_SHUTDOWN_MS)));
}
