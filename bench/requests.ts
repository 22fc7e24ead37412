/**
 * R-17 (issue 36, Performance): what the proxy adds to a request that is not a tool call, beside what it
 * adds to a tool call, in one run. The upstream is `e2e/fixtures/resources-server.mjs` (raw stdio, no SDK:
 * it costs almost nothing), which offers a read tool (`get_thing`), resources and prompts. Each iteration
 * sends one `tools/call`, one `resources/read` and one `prompts/get`, in an order that rotates, and times
 * each; the paths (the upstream directly, the proxy with its report file as `npm run bench`'s `proxy`
 * path, the same with `--journal`) are interleaved round by round, each run in fresh processes. The added
 * time of a kind is the median of the path's per-round medians minus the direct path's; the target: a
 * resource read and a prompt get each add at most 1.5 × what a tool call adds (proxy path).
 *
 * `npm run bench` runs it; `node dist/bench/requests.js [--calls N] [--rounds R]` runs it alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { median, nowMs } from './measure.js';
import { BIN, ROOT } from './scenarios.js';
import { TARGETS } from './targets.js';

const UPSTREAM = join(ROOT, 'e2e/fixtures/resources-server.mjs');
export const REQUEST_PATHS = ['direct', 'proxy', 'proxyJournal'] as const;
export type RequestPathName = (typeof REQUEST_PATHS)[number];
export const REQUEST_KINDS = ['tools/call', 'resources/read', 'prompts/get'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
/** The most a resource read or a prompt get may add, as a multiple of what a tool call adds (issue 36). */
const REQUEST_RATIO_LIMIT = TARGETS.requestOverToolCall;
const WARMUP = 30;

export interface RequestFigures {
  calls: number;
  rounds: number;
  /** Per path and kind: the median over rounds of each round's median (ms), and the added time against `direct`. */
  paths: Record<RequestPathName, Record<RequestKind, { medianMs: number; addedMs: number | null }>>;
  /** Per non-tool kind (proxy path): its added time divided by the tool call's; null when the tool call added nothing measurable. */
  ratios: Record<Exclude<RequestKind, 'tools/call'>, number | null>;
  met: boolean;
}

async function connect(name: RequestPathName, dir: string): Promise<Client> {
  const args =
    name === 'direct'
      ? [UPSTREAM]
      : [
          BIN,
          'proxy',
          '--audit-tools',
          'off',
          '--report-file',
          join(dir, 'r.json'),
          ...(name === 'proxyJournal' ? ['--journal', join(dir, 'j.jsonl')] : []),
          '--upstream-command',
          process.execPath,
          '--upstream-arg',
          UPSTREAM,
        ];
  const client = new Client({ name: 'bench-requests', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }), { timeout: 30_000 });
  return client;
}

/** Sends one request of `kind`, the `n`-th of its run (distinct arguments each time). */
async function send(client: Client, kind: RequestKind, n: number): Promise<void> {
  if (kind === 'tools/call') await client.callTool({ name: 'get_thing', arguments: { n } });
  else if (kind === 'resources/read') await client.readResource({ uri: n % 2 === 0 ? 'fixture://a' : 'fixture://b' });
  else await client.getPrompt({ name: 'greet', arguments: { who: `guest ${n}` } });
}

/** One run of a path: `calls` iterations of the three kinds; per kind the median (ms). */
async function measureOnce(name: RequestPathName, calls: number): Promise<Record<RequestKind, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'harness-bench-requests-'));
  const client = await connect(name, dir);
  try {
    for (let i = 0; i < WARMUP; i++) for (const kind of REQUEST_KINDS) await send(client, kind, -1 - i);
    const samples = new Map<RequestKind, number[]>(REQUEST_KINDS.map((kind) => [kind, []]));
    for (let i = 0; i < calls; i++) {
      for (let k = 0; k < REQUEST_KINDS.length; k++) {
        const kind = REQUEST_KINDS[(i + k) % REQUEST_KINDS.length]!;
        const start = nowMs();
        await send(client, kind, i);
        samples.get(kind)!.push(nowMs() - start);
      }
    }
    return Object.fromEntries(REQUEST_KINDS.map((kind) => [kind, median(samples.get(kind)!)])) as Record<RequestKind, number>;
  } finally {
    await client.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every path, `rounds` interleaved rounds (the order rotates) of `calls` iterations each. */
export async function measureRequests(calls: number, rounds: number, progress?: (line: string) => void): Promise<RequestFigures> {
  const runs = new Map<RequestPathName, Array<Record<RequestKind, number>>>(REQUEST_PATHS.map((path) => [path, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < REQUEST_PATHS.length; i++) {
      const name = REQUEST_PATHS[(i + round) % REQUEST_PATHS.length]!;
      const run = await measureOnce(name, calls);
      runs.get(name)!.push(run);
      progress?.(
        `requests round ${round + 1}/${rounds} ${name}: ${REQUEST_KINDS.map((kind) => `${kind} ${run[kind].toFixed(3)}`).join(', ')} ms (medians)`,
      );
    }
  }
  const medianOf = (path: RequestPathName, kind: RequestKind) => median(runs.get(path)!.map((run) => run[kind]));
  const paths = Object.fromEntries(
    REQUEST_PATHS.map((path) => [
      path,
      Object.fromEntries(
        REQUEST_KINDS.map((kind) => [
          kind,
          { medianMs: medianOf(path, kind), addedMs: path === 'direct' ? null : medianOf(path, kind) - medianOf('direct', kind) },
        ]),
      ),
    ]),
  ) as RequestFigures['paths'];
  const tool = paths.proxy['tools/call'].addedMs ?? 0;
  const ratio = (kind: RequestKind): number | null => (tool > 0 ? (paths.proxy[kind].addedMs ?? 0) / tool : null);
  const ratios = { 'resources/read': ratio('resources/read'), 'prompts/get': ratio('prompts/get') };
  const met = Object.values(ratios).every((r) => r !== null && r <= REQUEST_RATIO_LIMIT);
  return { calls, rounds, paths, ratios, met };
}

/** The table lines of the section, ending with the target's met / not met line. */
export function formatRequests(figures: RequestFigures): string[] {
  const ms = (value: number | null) => (value === null ? '—' : value.toFixed(3));
  const lines = [
    `Requests that are not tool calls (R-17): resources fixture, ${figures.calls} iterations of a tools/call (read tool), a resources/read and a prompts/get, ${figures.rounds} rounds (ms, median of the rounds' medians; added = path − direct)`,
    `${'path'.padEnd(14)}${REQUEST_KINDS.map((kind) => `${kind} median`.padStart(24) + 'added'.padStart(9)).join('')}`,
  ];
  for (const path of REQUEST_PATHS) {
    const row = figures.paths[path];
    lines.push(
      `${path.padEnd(14)}${REQUEST_KINDS.map((kind) => ms(row[kind].medianMs).padStart(24) + ms(row[kind].addedMs).padStart(9)).join('')}`,
    );
  }
  const ratio = (value: number | null) =>
    value === null ? 'not measurable (the tool call added nothing)' : `${value.toFixed(2)} ×`;
  lines.push(
    `target: a resources/read and a prompts/get each add ≤ ${REQUEST_RATIO_LIMIT} × a tool call's added time (proxy path): resources/read ${ratio(figures.ratios['resources/read'])}, prompts/get ${ratio(figures.ratios['prompts/get'])} — ${figures.met ? 'met' : 'NOT MET'}`,
  );
  return lines;
}

/** Run alone: `node dist/bench/requests.js [--calls N] [--rounds R]`. */
async function main(argv: readonly string[]): Promise<void> {
  const option = (name: string, fallback: number): number => {
    const at = argv.indexOf(name);
    if (at < 0) return fallback;
    const value = Number(argv[at + 1]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} takes a positive whole number, got "${argv[at + 1]}"`);
    return value;
  };
  const figures = await measureRequests(option('--calls', 1000), option('--rounds', 3), (line) =>
    process.stderr.write(`[bench] ${line}\n`),
  );
  process.stdout.write(`${formatRequests(figures).join('\n')}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
