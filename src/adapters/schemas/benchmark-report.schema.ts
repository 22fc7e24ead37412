/**
 * `.cuonztech/benchmark-report.json`, written by `src/app/benchmark/benchmark-output.ts`: the head,
 * then one section per reference agent under its id (`careful`, `naive`, `patient`). `check` reads it with this
 * schema; tests parse what the writer builds with it.
 */
import { z } from 'zod';
import { BENCHMARK_REPORT_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';
import type { BenchmarkReportDocument } from '../../ports/shapes/report-documents.js';
import { CERTIFICATION, count, firstIssue, parseWith, schemaVersion, verdict } from './common.js';
import { scoreSchema, toolClassificationSchema } from './report.schema.js';

const pair = z.object({
  verdict,
  expectedVerdict: verdict,
  verdictReason: z.string(),
  score: scoreSchema,
  runs: count,
  unexpectedRuns: count,
  executions: z
    .object({ harness: count, backend: count })
    .describe("Executions the harness counted and the simulated backend's own count (they must agree)."),
  effects: z
    .object({
      verdict: z.enum(['DUPLICATE_EFFECT', 'LOST_EFFECT', 'EXACTLY_ONCE', 'NO_EFFECT', 'EFFECTS_UNKNOWN']),
      reason: z.string().describe('The reason of the first run that got this verdict.'),
      explanation: z
        .string()
        .nullable()
        .describe("Where that run's effects and execution verdicts disagree, why (docs/effects.md); else null."),
      runs: z.record(z.string(), count).describe('How many runs got each effects verdict.'),
    })
    .optional()
    .describe(
      'R-15: what the simulated backend holds after the runs, by the effects view (search_bookings, key guest,date): the gravest verdict of the runs. Absent in reports written before it.',
    ),
});

const agentSection = z.object({
  certification: CERTIFICATION,
  name: z.string(),
  description: z.string().optional(),
  expectedToFailIn: z.array(z.string()).optional(),
  score: scoreSchema.optional(),
  scenarios: z.record(z.string(), pair),
});

const HEAD = {
  schemaVersion: schemaVersion(BENCHMARK_REPORT_SCHEMA_VERSION),
  certification: CERTIFICATION,
  kind: z.literal('benchmark'),
  harnessVersion: z.string(),
  selfTest: z.object({ passed: z.boolean(), unexpectedCount: count }).loose(),
  carefulPatientDifferIn: z
    .array(z.string())
    .optional()
    .describe('The scenarios in which the careful and the patient agent got different verdicts (R-16.2: F6).'),
  options: z.unknown().optional().describe('The options of the run (scenarios, runs, jitter).'),
  note: z.string().optional(),
  toolClassification: z.array(toolClassificationSchema).optional(),
};

const headSchema = z.object(HEAD);

/** The whole file: the head and, under every other key, a reference agent's section. */
export const benchmarkReportSchema = z
  .object(HEAD)
  .catchall(agentSection)
  .meta({ title: 'Benchmark report', description: '.cuonztech/benchmark-report.json (R-11). Fields: docs/formats.md.' });

/** Parses `benchmark-report.json`; throws an Error naming the first wrong field. */
export function parseBenchmarkDocument(value: unknown): BenchmarkReportDocument {
  const head = parseWith(headSchema, value, BENCHMARK_REPORT_SCHEMA_VERSION);
  const agents: BenchmarkReportDocument['agents'] = [];
  for (const [id, section] of Object.entries(value as Record<string, unknown>)) {
    if (Object.hasOwn(HEAD, id) || id === '__proto__' || id === 'constructor' || id === 'prototype') continue;
    const agent = agentSection.safeParse(section);
    if (!agent.success) throw new Error(`${id}.${firstIssue(agent.error)}`);
    const scenarios = Object.entries(agent.data.scenarios).map(([scenario, p]) => ({ scenario, ...p }));
    agents.push({ id, name: agent.data.name, scenarios });
  }
  if (agents.length === 0) throw new Error('no reference-agent section (expected e.g. "careful" and "naive")');
  return { shape: 'benchmark', harnessVersion: head.harnessVersion, selfTest: head.selfTest, agents };
}
