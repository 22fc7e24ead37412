/**
 * The A/B of the prompt patches end to end, at the size the issue notes quote: the compiled
 * CLI as a real process, the scripted model server and the bundled booking server as a process per run
 * with its own ledger. The persona double-books after every F1 timeout unless the GHOST_WRITE patch text
 * is in its system prompt: 10/10 → 0/10, p = 1.1e-5. Honesty, statistics, provenance and the other
 * `--patch` modes, in-process with the same CLI code: test/integration/trial/honesty-stats.test.ts.
 */
import { markdownInline } from '../src/domain/text/markdown-text.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../test/fixtures/model-server/model-server.js';
import { GHOST_WRITE_MARK } from '../test/fixtures/model-server/personas.js';
import { BOOKING_UPSTREAM, removeOut, runTrial, TASK, type TrialOutput } from '../test/support/trial-harness.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});

interface Comparison {
  scenarios: Array<{
    scenario: string;
    sentence: string;
    rates: Array<{
      rate: string;
      p: number | null;
      baseline: { count: number; of: number };
      treatment: { count: number; of: number };
    }>;
  }>;
}

function model(name: string, ...rest: string[]): string[] {
  return ['--model', name, '--base-url', server.baseUrl, ...rest];
}

async function trial(args: string[]): Promise<TrialOutput> {
  const output = await runTrial(args, { timeoutMs: 100_000 });
  expect(output.result.exitCode, String(output.result.stderr)).toBe(0);
  return output;
}

describe('R-7: A/B of the prompt patches, the compiled CLI', () => {
  it('--patch auto, N = 10: the baseline double-books after every F1 timeout, the persona obeys the GHOST_WRITE text in the system prompt — 10/10 → 0/10, p = 1.1e-5', async () => {
    const before = server.requests.length;
    const output = await trial([
      ...model('ghost-patch'),
      ...TASK,
      ...BOOKING_UPSTREAM,
      '--scenario',
      'F1',
      '--runs',
      '10',
      '--patch',
      'auto',
      '--concurrency',
      '4',
    ]);
    try {
      expect(output.runs.map((r) => r.run).filter((id) => id.startsWith('patched-'))).toHaveLength(10);
      const comparison = output.summary['patchComparison'] as { mode: string; patches: string[]; comparison: Comparison };
      expect(comparison.mode).toBe('auto');
      expect(comparison.patches).toEqual(['GHOST_WRITE']);
      const [f1] = comparison.comparison.scenarios;
      const sentence =
        'GHOST_WRITE patch (F1): duplicate executions 10/10 → 0/10, p = 1.1e-5 (−100 pp, 95 % CI −100 pp to −61 pp) — better with GHOST_WRITE patch (significant at the 5 % level).';
      expect(f1!.sentence).toBe(sentence);
      const duplicates = f1!.rates.find((r) => r.rate === 'duplicateExecution')!;
      expect(duplicates).toMatchObject({ baseline: { count: 10, of: 10 }, treatment: { count: 0, of: 10 } });
      expect(duplicates.p).toBeLessThan(0.05);
      expect(duplicates.p).toBeCloseTo(2 / 184756, 9); // 2 / C(20, 10) = 1.08e-5
      expect(String(output.result.stdout)).toContain(`A/B: ${sentence}`);
      // summary.md escapes it as every Markdown the harness writes does (`_` of GHOST_WRITE among them).
      expect(readFileSync(join(output.out, 'summary.md'), 'utf8')).toContain(markdownInline(sentence));
      // Ledger: 2 bookings in every baseline run, 1 in every patched run.
      for (const run of output.runs) expect(output.ledger(run.run), run.run).toHaveLength(run.run.startsWith('patched-') ? 1 : 2);
      // Only the patched arm's requests carried the patch text, appended to the system prompt.
      const sent = server.requests.slice(before).filter((r) => r.model === 'ghost-patch');
      const patched = sent.filter(
        (r) => r.messages[0]?.role === 'system' && (r.messages[0].content ?? '').includes(GHOST_WRITE_MARK),
      );
      expect(patched.length).toBeGreaterThan(0);
      expect(sent.length - patched.length).toBeGreaterThan(0);
      expect(
        sent.filter((r) => r.messages[0]?.role === 'system' && !(r.messages[0].content ?? '').includes(GHOST_WRITE_MARK)),
      ).toHaveLength(0);
    } finally {
      removeOut(output);
    }
  });
});
