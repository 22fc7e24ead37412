/**
 * Shared set-up of the adversarial suite: raw proxies (see `../../test/support/raw-proxy.ts`) owned by one test,
 * so tests can run concurrently and each one still ends every process it started, plus the raw calls the
 * cases need. Register the lab's clean-up with the test's `onTestFinished`.
 */
import { join } from 'node:path';
import { INITIALIZE, isAlive } from '../fixtures/lib/raw-child.mjs';
import type { RawChild, RawMessage } from '../fixtures/lib/raw-child.mjs';
import { FIXTURES } from '../../test/support/proxy-harness.js';
import { resultOf, spawnProxy, type RawProxy, type SpawnProxyOptions } from '../../test/support/raw-proxy.js';

/** The upstream flags for `node e2e/fixtures/<name>`. */
export const nodeFixture = (name: string): string[] => [
  '--upstream-command',
  process.execPath,
  '--upstream-arg',
  join(FIXTURES, name),
];

/** The counting upstream (see `e2e/fixtures/counting-server.mjs`). */
export const COUNTING = nodeFixture('counting-server.mjs');

/** `sh -c <script>` as the upstream, for wrappers and pidfiles. */
export const shell = (script: string): string[] => ['--upstream-command', 'sh', '--upstream-arg', '-c', '--upstream-arg', script];

/** A shell word running `node e2e/fixtures/<name>`. */
export const nodeWord = (name: string): string => `"${process.execPath}" "${join(FIXTURES, name)}"`;

/** Starts one proxy (spawned, or the CLI in-process: `test/support/cli-proxy-child.ts`) without the handshake. */
export type ProxyLauncher<O> = (flags: string[], options: O) => RawProxy;

/** The processes and folders of one test. */
export class FaultLab<O = SpawnProxyOptions> {
  private readonly proxies: RawProxy[] = [];
  private readonly pids = new Set<number>();

  constructor(private readonly launcher: ProxyLauncher<O>) {}

  /** Starts a proxy without the handshake. */
  launch(flags: string[], options = {} as O): RawProxy {
    const proxy = this.launcher(flags, options);
    this.proxies.push(proxy);
    return proxy;
  }

  /** Starts a proxy and completes the handshake. */
  async start(flags: string[], options = {} as O): Promise<RawProxy> {
    const proxy = this.launch(flags, options);
    await proxy.initialize();
    return proxy;
  }

  /** Pids to kill at the end if a failing test left them alive. */
  watch(pids: Iterable<number>): void {
    for (const pid of pids) this.pids.add(pid);
  }

  /** Ends every proxy, kills watched survivors and removes the temp folders. Never throws. */
  async dispose(): Promise<void> {
    await Promise.all(this.proxies.map((proxy) => proxy.dispose()));
    for (const pid of this.pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
}

/** A lab of spawned proxies whose clean-up runs when the test finishes (pass `onTestFinished` from the test context). */
export function faultLab(onTestFinished: (fn: () => Promise<void>) => void): FaultLab {
  return labOf(onTestFinished, spawnProxy);
}

/** A lab over any launcher, cleaned up when the test finishes. */
export function labOf<O>(onTestFinished: (fn: () => Promise<void>) => void, launcher: ProxyLauncher<O>): FaultLab<O> {
  const lab = new FaultLab(launcher);
  onTestFinished(() => lab.dispose());
  return lab;
}

/** Calls a tool and answers the raw result (fails clearly on a JSON-RPC error). */
export async function callTool(
  p: RawProxy,
  name: string,
  args: unknown = {},
  timeoutMs = 15_000,
): Promise<Record<string, unknown>> {
  return resultOf(await p.request('tools/call', { name, arguments: args }, timeoutMs));
}

/** Handshake, then `count` writes named after the proxy (`create_order {item: <name>-<i>}`), all answered. */
export async function serveSession(raw: RawChild, name: string, count: number): Promise<void> {
  raw.send(INITIALIZE);
  await raw.next((m) => m['id'] === 0, 30_000);
  raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  for (let i = 1; i <= count; i++)
    raw.send({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'create_order', arguments: { item: `${name}-${i}` } },
    });
  for (let i = 1; i <= count; i++) await raw.next((m) => m['id'] === i, 30_000);
}

/** Writes a tools/call request without waiting for its answer. */
export function sendCall(p: RawProxy, id: number, name: string, args: unknown): void {
  p.raw.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}

/** Writes a tools/call request whose params are the given JSON text, byte for byte. */
export function sendRawCall(p: RawProxy, id: number, paramsText: string): void {
  p.raw.send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${paramsText}}`);
}

/**
 * Every message matching `predicate`, once at least `count` arrived (bounded by `timeoutMs`) and then
 * `settleMs` passed, so extra messages would be seen too.
 */
export async function messagesMatching(
  p: RawProxy,
  predicate: (m: RawMessage) => boolean,
  count: number,
  timeoutMs = 10_000,
  settleMs = 300,
): Promise<RawMessage[]> {
  const found = new Set<RawMessage>();
  const collect = (m: RawMessage): boolean => {
    if (predicate(m)) found.add(m);
    return false;
  };
  await p.raw.next((m) => collect(m) || found.size >= count, timeoutMs).catch(() => undefined);
  await p.raw.next(collect, settleMs).catch(() => undefined);
  return [...found];
}
