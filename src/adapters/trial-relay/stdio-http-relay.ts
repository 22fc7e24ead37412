/**
 * `trial --agent-transport stdio`: the MCP server command given to the user's agent program. It relays
 * MCP messages verbatim between its stdin/stdout (the agent) and the run's Streamable HTTP endpoint in the
 * trial process, so a stdio agent is judged by the same in-process pipeline as any other — however many
 * times it starts the command. Ends when the agent closes stdin (or stops reading), ending the HTTP session.
 */
import { errorMessage } from '../../domain/error-message.js';
import type { Readable, Writable } from 'node:stream';

export interface RelayIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

function errorText(error: unknown): string {
  return errorMessage(error);
}

/** Relays until the agent leaves; resolves with the exit code (1 when the endpoint cannot be reached). */
export async function relayStdioToHttp(url: URL, io: RelayIo): Promise<number> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const agent = new StdioServerTransport(io.stdin, io.stdout);
  const endpoint = new StreamableHTTPClientTransport(url);
  return new Promise<number>((resolve) => {
    let ending = false;
    const end = (code: number, why?: string): void => {
      if (ending) return;
      ending = true;
      if (why !== undefined) io.stderr.write(`trial-relay: ${why}\n`);
      void (async () => {
        await endpoint.terminateSession().catch(() => undefined);
        await endpoint.close().catch(() => undefined);
        await agent.close().catch(() => undefined);
        resolve(code);
      })();
    };
    agent.onmessage = (message) => {
      endpoint
        .send(message)
        .catch((error: unknown) => end(1, `the trial's MCP endpoint ${url.href} failed: ${errorText(error)}`));
    };
    endpoint.onmessage = (message) => {
      // Later requests carry the negotiated protocol version, as the SDK client would send it.
      const result = (message as { result?: { protocolVersion?: unknown } }).result;
      if (typeof result?.protocolVersion === 'string') endpoint.setProtocolVersion(result.protocolVersion);
      agent.send(message).catch(() => end(0));
    };
    // The SDK's stdio server transport notices neither stdin EOF nor a closed stdout.
    io.stdin.once('end', () => end(0)).once('close', () => end(0));
    io.stdout.once('error', () => end(0));
    endpoint
      .start()
      .then(() => agent.start())
      .catch((error: unknown) => end(1, errorText(error)));
  });
}
