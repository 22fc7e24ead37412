/**
 * The file `probe --json` writes (docs/probe.md, "--json"): what `probe` found for each write tool, and
 * the head that makes it a file of this harness. `check` reads it back (validated by
 * `src/adapters/schemas/probe-results.schema.ts`), so the type lives here, not in the probe use case.
 */
import type { ProbeEvidence, ProbeResult, ToolVerdict } from '../../domain/probe/probe-judge.js';
import type { ProbeId, ToolPromise } from '../../domain/probe/probes.js';
import type { PROBE_RESULTS_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';

/** One probe's result with what it sent and saw. */
export interface ProbeRow extends ProbeResult {
  evidence: ProbeEvidence & { sent: Array<{ arguments: unknown; meta?: Record<string, unknown>; fault?: string }> };
}

export interface ToolReport {
  tool: string;
  promise: ToolPromise;
  keyField: string;
  verdict: ToolVerdict;
  reason: string;
  /** Where the server reads the key (P7, reported). */
  keyLocation: string;
  probes: ProbeRow[];
  skipped: Array<{ probe: ProbeId; why: string }>;
}

export interface ProbeReport {
  server: string | null;
  countWith: string | null;
  tools: ToolReport[];
}

/** The whole `--json` file: its head, then the report. */
export type ProbeResultsFile = {
  schemaVersion: typeof PROBE_RESULTS_SCHEMA_VERSION;
  kind: 'probe-results';
  harnessVersion: string;
  /** The exit code `probe` ended with (docs/commands/probe.md). */
  exitCode: number;
} & ProbeReport;
