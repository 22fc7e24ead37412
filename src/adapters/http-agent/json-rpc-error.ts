/** A JSON-RPC error answer over HTTP, in the shape the SDK's transport uses for the requests it refuses. */
import type { ServerResponse } from 'node:http';

/**
 * Answers `status` with `{"jsonrpc":"2.0","id":…,"error":{code,message}}`. `idJson` is the id's JSON text
 * (`null` when the request had none, or the exact token the agent sent).
 */
export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  options: { idJson?: string; headers?: Record<string, string> } = {},
): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...options.headers })
    .end(`{"jsonrpc":"2.0","id":${options.idJson ?? 'null'},"error":${JSON.stringify({ code, message })}}`);
}
