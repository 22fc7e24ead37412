/**
 * Where the time of one call goes inside the process the agent talks to: from the agent's line (a read
 * on stdin) to the write to the upstream (`toUpstream`), from there to the upstream's answer (`upstream`:
 * the upstream's work and any of the process's own still running), and from the answer to the write to
 * the agent (`toAgent`). Per path, medians over the calls, the paths run one after the other `--rounds`
 * times; the times come from `segment-hook.ts` loaded into that process.
 *
 *   npm run build && node dist/bench/segments.js [--calls 2000] [--rounds 2] [--paths floor,proxyNoFile] [--before <dist>]
 *
 * `--before`: another build's `dist`, run as `proxyNoFile@before` beside this one. A diagnostic: it says
 * which stretch a change moved, not whether a target is met (that is `npm run bench`).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { errorMessage } from '../src/domain/error-message.js';
import { measurePath } from './drive.js';
import { median } from './measure.js';
import type { PathName } from './scenarios.js';

/** The three stretches of each call, in µs. */
export interface Segments {
  toUpstream: number[];
  upstream: number[];
  toAgent: number[];
}

/**
 * Cuts the recorded events (flat triples: ms, 0 read / 1 write, fd) into calls: a read on fd 0 opens a
 * call, its first write to a descriptor above 2 is the upstream write, the next read above 2 the upstream's
 * answer, and the next write to fd 1 (or an unknown one) the answer to the agent.
 */
export function cutSegments(events: readonly number[]): Segments {
  const out: Segments = { toUpstream: [], upstream: [], toAgent: [] };
  let call: { read: number; sent?: number; answer?: number } | null = null;
  for (let i = 0; i + 2 < events.length; i += 3) {
    const [t, kind, fd] = [events[i]!, events[i + 1]!, events[i + 2]!];
    if (kind === 0 && fd === 0) call = { read: t };
    else if (call === null) continue;
    else if (kind === 1 && fd > 2 && call.sent === undefined) call.sent = t;
    else if (kind === 0 && fd > 2 && call.sent !== undefined && call.answer === undefined) call.answer = t;
    else if (kind === 1 && (fd === 1 || fd === -1) && call.answer !== undefined) {
      out.toUpstream.push((call.sent! - call.read) * 1000);
      out.upstream.push((call.answer - call.sent!) * 1000);
      out.toAgent.push((t - call.answer) * 1000);
      call = null;
    }
  }
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string', default: '2000' },
      rounds: { type: 'string', default: '2' },
      paths: { type: 'string', default: 'floor,proxyNoFile' },
      before: { type: 'string' },
    },
  });
  const calls = Number(values.calls);
  const rounds = Number(values.rounds);
  const hook = join(dirname(fileURLToPath(import.meta.url)), 'segment-hook.js');
  const before = values.before === undefined ? undefined : resolve(values.before, 'cli', 'bin.js');
  if (before !== undefined && !existsSync(before)) throw new Error(`--before: no ${before}`);
  const arms: Array<{ label: string; path: PathName; bin?: string }> = values.paths
    .split(',')
    .map((path) => ({ label: path, path: path as PathName }));
  if (before !== undefined) arms.push({ label: 'proxyNoFile@before', path: 'proxyNoFile', bin: before });
  const userNodeOptions = process.env['NODE_OPTIONS'];
  const dir = mkdtempSync(join(tmpdir(), 'harness-bench-segments-'));
  try {
    for (let r = 1; r <= rounds; r++) {
      for (const arm of arms) {
        const file = join(dir, `${arm.label}-${r}.json`);
        process.env['BENCH_SEGMENTS_FILE'] = file;
        process.env['NODE_OPTIONS'] = `${userNodeOptions ?? ''} --import ${hook}`.trim();
        const run = await measurePath(arm.path, calls, [], arm.bin);
        if (userNodeOptions === undefined) delete process.env['NODE_OPTIONS'];
        else process.env['NODE_OPTIONS'] = userNodeOptions;
        // The process writes its file as it exits, which may come a moment after the client closed.
        for (let waited = 0; !existsSync(file) && waited < 3000; waited += 50) await delay(50);
        const segments = cutSegments(JSON.parse(readFileSync(file, 'utf8')) as number[]);
        const us = (values: number[]) => `${median(values).toFixed(0)} µs`;
        process.stdout.write(
          `round ${r} ${arm.label.padEnd(20)} mean ${run.meanMs.toFixed(3)} ms/call; ${segments.toUpstream.length} calls: ` +
            `to upstream ${us(segments.toUpstream)}, upstream ${us(segments.upstream)}, to agent ${us(segments.toAgent)}\n`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench segments: ${errorMessage(error)}\n`);
    process.exit(1);
  });
}
