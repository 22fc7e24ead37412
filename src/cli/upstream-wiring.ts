/**
 * The upstream as the proxy's flags describe it, shared by the commands that start one (`proxy`, and a
 * run of `trial` or a probe of `probe` with the proxy's upstream flags): a spawned stdio process, a remote
 * Streamable HTTP server, or a recording (`--upstream-replay`, read and checked before anything starts).
 * No logic beyond wiring.
 */
import { resolve } from 'node:path';
import { errorMessage } from '../domain/error-message.js';
import type { Cassette } from '../adapters/cassette/cassette-reader.js';
import { StdioUpstreamSide } from '../adapters/stdio-upstream/index.js';
import type { Logger } from '../ports/logger.port.js';
import type { UpstreamSide } from '../ports/upstream-side.port.js';
import { HARNESS_VERSION, PROGRAM_NAME } from '../version.js';
import { FatalError, UsageError } from './errors.js';
import type { CliIo } from './io.js';
import type { ProxyFlags } from './proxy-flags.js';

/** A recording read for `--upstream-replay` (its reader, which uses zod, is loaded only then). */
export type Replay = Cassette;

/** `--upstream-replay FILE`, read and checked before anything starts: a bad recording is one line, exit 1. */
export async function loadReplay(flags: ProxyFlags, io: CliIo): Promise<Replay | undefined> {
  if (flags.upstreamReplay === undefined) return undefined;
  const { readCassette } = await import('../adapters/cassette/cassette-reader.js');
  try {
    return await readCassette(resolve(io.cwd, flags.upstreamReplay), { allowRedacted: flags.allowRedacted });
  } catch (error) {
    throw new FatalError(errorMessage(error));
  }
}

/**
 * The upstream adapter the flags ask for: a spawned stdio process, a remote Streamable HTTP server, or
 * (`--upstream-replay`) the recording `replay`, read by {@link loadReplay}.
 */
export async function createUpstream(
  flags: ProxyFlags,
  io: CliIo,
  logger: Logger,
  replay?: Replay,
  { relayToAgent = true }: { relayToAgent?: boolean } = {},
): Promise<UpstreamSide> {
  if (replay !== undefined) return new (await import('../adapters/cassette/replay-upstream-side.js')).ReplayUpstreamSide(replay);
  const common = {
    // the upstream's notifications and requests reach the agent (probe has no agent to ask).
    relayToAgent,
    callTimeoutMs: flags.upstreamTimeoutMs,
    connectTimeoutMs: Math.max(flags.upstreamTimeoutMs, 60_000),
    clientName: PROGRAM_NAME,
    clientVersion: HARNESS_VERSION,
    logger,
  };
  if (flags.upstreamUrl !== undefined) {
    const { HttpUpstreamSide, parseHeaderFlags } = await import('../adapters/http-upstream/index.js');
    let headers: Record<string, string>;
    try {
      headers = parseHeaderFlags(flags.upstreamHeaderFlags, flags.upstreamHeaderEnvFlags, io.env);
    } catch (error) {
      throw new UsageError(errorMessage(error));
    }
    return new HttpUpstreamSide({ url: flags.upstreamUrl, headers, ...common });
  }
  return new StdioUpstreamSide({
    command: flags.upstreamCommand!,
    args: flags.upstreamArgs,
    ...(flags.upstreamCwd !== undefined ? { cwd: resolve(io.cwd, flags.upstreamCwd) } : {}),
    env: flags.upstreamEnv,
    ...common,
  });
}
