/**
 * Per-call cost over Streamable HTTP, side by side with stdio: the bundled booking server as
 * the upstream, reached directly over stdio and over HTTP, and through the proxy stdio→stdio,
 * stdio→HTTP (`--upstream-url`) and HTTP→stdio (`--listen`). Interleaved rounds, medians.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { latencyStats, median, nowMs, type LatencyStats } from './measure.js';
import { BIN, ROOT } from './scenarios.js';

const BOOKING = join(ROOT, 'dist/examples/booking-server/server.js');
export const HTTP_PATHS = ['direct-stdio', 'direct-http', 'proxy-stdio-stdio', 'proxy-stdio-http', 'proxy-http-stdio'] as const;
export type HttpPathName = (typeof HTTP_PATHS)[number];

export interface HttpFigures {
  calls: number;
  rounds: number;
  /** Median over rounds of each path's stats, and the added cost against the matching direct path. */
  paths: Record<HttpPathName, { meanMs: number; medianMs: number; p99Ms: number; addedMs: number | null }>;
}

/** Starts a process and resolves with the first match of `pattern` in its stderr. */
function spawnAndRead(args: string[], pattern: RegExp, dir: string): Promise<{ child: ChildProcess; match: string }> {
  const child = spawn(process.execPath, args, { cwd: dir, stdio: ['pipe', 'ignore', 'pipe'] });
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no match for ${pattern} in: ${text}`)), 30_000);
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const m = pattern.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m[1]! });
      }
    });
  });
}

async function openPath(name: HttpPathName, dir: string): Promise<{ client: Client; children: ChildProcess[] }> {
  const children: ChildProcess[] = [];
  const proxyArgs = [BIN, 'proxy', '--audit-tools', 'off'];
  let transport: Transport;
  if (name === 'direct-stdio')
    transport = new StdioClientTransport({ command: process.execPath, args: [BOOKING], stderr: 'ignore' });
  else if (name === 'proxy-stdio-stdio') {
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        ...proxyArgs,
        '--report-file',
        join(dir, 'r.json'),
        '--upstream-command',
        process.execPath,
        '--upstream-arg',
        BOOKING,
      ],
      stderr: 'ignore',
    });
  } else if (name === 'proxy-http-stdio') {
    const proxy = await spawnAndRead(
      [
        ...proxyArgs,
        '--report-dir',
        dir,
        '--listen',
        '127.0.0.1:0',
        '--upstream-command',
        process.execPath,
        '--upstream-arg',
        BOOKING,
      ],
      /agents connect to (\S+)/,
      dir,
    );
    children.push(proxy.child);
    transport = new StreamableHTTPClientTransport(new URL(proxy.match));
  } else {
    const booking = await spawnAndRead([BOOKING, '--http', '0'], /(http:\/\/\S+\/mcp)/, dir);
    children.push(booking.child);
    transport =
      name === 'direct-http'
        ? new StreamableHTTPClientTransport(new URL(booking.match))
        : new StdioClientTransport({
            command: process.execPath,
            args: [...proxyArgs, '--report-file', join(dir, 'r.json'), '--upstream-url', booking.match],
            stderr: 'ignore',
          });
  }
  const client = new Client({ name: 'bench-http', version: '1.0.0' });
  await client.connect(transport, { timeout: 30_000 });
  return { client, children };
}

async function measureOnce(name: HttpPathName, calls: number): Promise<LatencyStats> {
  const dir = mkdtempSync(join(tmpdir(), 'harness-bench-http-'));
  const { client, children } = await openPath(name, dir);
  try {
    const write = (n: number) => client.callTool({ name: 'create_booking', arguments: { guest: `g${n}`, date: '2026-11-03' } });
    for (let i = 0; i < 20; i++) await write(-1 - i);
    const samples: number[] = [];
    for (let i = 0; i < calls; i++) {
      const start = nowMs();
      await write(i);
      samples.push(nowMs() - start);
    }
    return latencyStats(samples);
  } finally {
    await client.close().catch(() => undefined);
    for (const child of children) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Measures every HTTP-related path, `rounds` interleaved rounds of `calls` writes each. */
export async function measureHttp(calls: number, rounds: number): Promise<HttpFigures> {
  const runs = new Map<HttpPathName, LatencyStats[]>(HTTP_PATHS.map((p) => [p, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < HTTP_PATHS.length; i++) {
      const name = HTTP_PATHS[(i + round) % HTTP_PATHS.length]!;
      runs.get(name)!.push(await measureOnce(name, calls));
    }
  }
  const stat = (name: HttpPathName, key: 'meanMs' | 'medianMs' | 'p99Ms') => median(runs.get(name)!.map((s) => s[key]));
  const baseline: Record<HttpPathName, HttpPathName | null> = {
    'direct-stdio': null,
    'direct-http': null,
    'proxy-stdio-stdio': 'direct-stdio',
    'proxy-stdio-http': 'direct-http',
    'proxy-http-stdio': 'direct-stdio',
  };
  const paths = Object.fromEntries(
    HTTP_PATHS.map((name) => {
      const base = baseline[name];
      return [
        name,
        {
          meanMs: stat(name, 'meanMs'),
          medianMs: stat(name, 'medianMs'),
          p99Ms: stat(name, 'p99Ms'),
          addedMs: base === null ? null : stat(name, 'meanMs') - stat(base, 'meanMs'),
        },
      ];
    }),
  ) as HttpFigures['paths'];
  return { calls, rounds, paths };
}

/** The table lines of the HTTP section. */
export function formatHttp(figures: HttpFigures): string[] {
  const lines = [
    `Transports: booking server, ${figures.calls} distinct writes, ${figures.rounds} rounds (ms per call; added = mean − mean of the direct path of the same upstream transport)`,
  ];
  lines.push(`${'path'.padEnd(20)}${'median'.padStart(9)}${'p99'.padStart(9)}${'mean'.padStart(9)}${'added'.padStart(9)}`);
  for (const name of HTTP_PATHS) {
    const p = figures.paths[name];
    lines.push(
      `${name.padEnd(20)}${p.medianMs.toFixed(3).padStart(9)}${p.p99Ms.toFixed(3).padStart(9)}${p.meanMs.toFixed(3).padStart(9)}${(p.addedMs === null ? '—' : p.addedMs.toFixed(3)).padStart(9)}`,
    );
  }
  return lines;
}
