import { isIPv6 } from 'node:net';

/** The host used when a listen address names only a port (`:3000`): loopback, never all interfaces. */
export const DEFAULT_LISTEN_HOST = '127.0.0.1';

const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;
const PORT = /^\d{1,5}$/;

function invalid(value: string, why: string): Error {
  return new Error(`invalid listen address "${value}": ${why} (expected <host>:<port>, e.g. 127.0.0.1:3000)`);
}

/** Splits `host:port`, `[v6]:port` or `:port` at the port's colon; the host keeps no brackets. */
function splitHostPort(value: string): { host: string; port: string } {
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close === -1 || value[close + 1] !== ':') throw invalid(value, 'an IPv6 host needs the form [addr]:port');
    const host = value.slice(1, close);
    if (!isIPv6(host)) throw invalid(value, `"${host}" is not an IPv6 address`);
    return { host, port: value.slice(close + 2) };
  }
  const colon = value.lastIndexOf(':');
  if (colon === -1 && PORT.test(value)) throw invalid(value, `a port alone; write :${value} for ${DEFAULT_LISTEN_HOST}:${value}`);
  if (colon === -1) throw invalid(value, 'the port is missing');
  const host = value.slice(0, colon);
  if (host.includes(':')) throw invalid(value, 'put an IPv6 host in brackets, e.g. [::1]:8080');
  if (host !== '' && !HOST_NAME.test(host)) throw invalid(value, `"${host}" is not a host name or address`);
  return { host: host === '' ? DEFAULT_LISTEN_HOST : host, port: value.slice(colon + 1) };
}

/**
 * Parses the value of `--listen`: `127.0.0.1:3000`, `localhost:0`, `[::1]:8080`, or `:3000` (host
 * 127.0.0.1). Port 0 asks for any free port. Throws a one-line `Error` for anything else.
 */
export function parseListenAddress(value: string): { host: string; port: number } {
  const { host, port } = splitHostPort(value.trim());
  if (!PORT.test(port)) throw invalid(value, `"${port}" is not a port number`);
  const number = Number(port);
  if (number > 65535) throw invalid(value, `port ${number} is above 65535`);
  return { host, port: number };
}
