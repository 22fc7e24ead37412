/**
 * a request that is not a tool call (resources, prompts, completions, logging, ping), forwarded to
 * the upstream as it came and answered as the upstream answered. Never classified, faulted or judged: it
 * is not an operation and not a check.
 */
import type { ForwardedAnswer } from '../../ports/agent-side.port.js';
import type { UpstreamCallOptions, UpstreamCallOutcome, UpstreamSide } from '../../ports/upstream-side.port.js';

/** JSON-RPC codes the proxy answers with when the upstream gave no answer of its own. */
const REQUEST_TIMEOUT = -32001;
const INTERNAL_ERROR = -32603;
const METHOD_NOT_FOUND = -32601;

/** The agent's answer for how the forwarded request ended: the upstream's result or error, unchanged. */
export function answerOf(method: string, outcome: UpstreamCallOutcome): ForwardedAnswer {
  switch (outcome.kind) {
    case 'result':
      return { result: outcome.result };
    case 'protocol-error':
      return {
        error: { code: outcome.code, message: outcome.message, ...(outcome.data !== undefined ? { data: outcome.data } : {}) },
      };
    case 'timeout':
      return { error: { code: REQUEST_TIMEOUT, message: `${method}: the upstream did not answer within ${outcome.afterMs} ms` } };
    default:
      return { error: { code: INTERNAL_ERROR, message: `${method}: no answer from the upstream (${outcome.detail})` } };
  }
}

/**
 * Forwards one request through `upstream`. An upstream side that offers tools only (simulated, replayed)
 * answers `ping` itself and anything else `-32601 Method not found`, as its initialize result promised.
 */
export async function forwardRequest(
  upstream: UpstreamSide,
  method: string,
  params: Record<string, unknown>,
  options: UpstreamCallOptions & { signal: AbortSignal },
): Promise<ForwardedAnswer> {
  if (upstream.forwardRequest === undefined) {
    return method === 'ping' ? { result: {} } : { error: { code: METHOD_NOT_FOUND, message: 'Method not found' } };
  }
  return answerOf(method, await upstream.forwardRequest(method, params, options));
}

/**
 * What a forwarded request names, for its journal line: the resource's URI (`resources/read`,
 * `resources/subscribe`/`unsubscribe`, a completion of a resource template) or the prompt's name
 * (`prompts/get`, a completion of a prompt's argument). Nothing for the other methods, or when the field is
 * not a string.
 */
export function namedBy(method: string, params: Record<string, unknown>): { uri?: string; name?: string } {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const field = (from: unknown, key: string) =>
    typeof from === 'object' && from !== null && Object.hasOwn(from, key)
      ? text((from as Record<string, unknown>)[key])
      : undefined;
  let uri: string | undefined;
  let name: string | undefined;
  if (method === 'resources/read' || method === 'resources/subscribe' || method === 'resources/unsubscribe')
    uri = field(params, 'uri');
  else if (method === 'prompts/get') name = field(params, 'name');
  else if (method === 'completion/complete') {
    const ref = Object.hasOwn(params, 'ref') ? params['ref'] : undefined;
    uri = field(ref, 'uri');
    name = field(ref, 'name');
  }
  return { ...(uri !== undefined ? { uri } : {}), ...(name !== undefined ? { name } : {}) };
}
