import { isIPv4 } from 'node:net';
import { hostname as osHostname, networkInterfaces } from 'node:os';

/** The loopback names an agent on this machine may put in a Host header. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARD_HOSTS = ['0.0.0.0', '::'];

/** True for `localhost`, `127.x.x.x` and `::1` (with or without brackets). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  if (name === 'localhost' || name === '::1' || name === '[::1]') return true;
  return isIPv4(name) && name.startsWith('127.');
}

/** `host:port` as it appears in a Host header (IPv6 in brackets, lower case); on port 80 also `host`. */
function hostHeaders(host: string, port: number): string[] {
  const name = (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host).toLowerCase();
  // Browsers and fetch leave out the scheme's default port.
  return port === 80 ? [`${name}:${port}`, name] : [`${name}:${port}`];
}

/** The names agents on other machines reach a wildcard bind by: this machine's addresses and its name. */
export interface LocalNames {
  addresses: string[];
  hostname: string;
}

function localNames(): LocalNames {
  const addresses = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((entry) => entry.address)
    .filter((address) => !address.includes('%'));
  return { addresses, hostname: osHostname() };
}

/**
 * The Host header values accepted by default for a server bound to `host:port`: the loopback names
 * for a loopback or wildcard bind, plus the bound host itself; a wildcard bind (`0.0.0.0`, `::`) also
 * accepts every address of this machine and its host name (what agents on other machines connect to).
 * A name that only resolves here through someone else's DNS (rebinding) is never among them.
 */
export function defaultAllowedHosts(host: string, port: number, local?: LocalNames): string[] {
  const wildcard = WILDCARD_HOSTS.includes(host);
  const names = isLoopbackHost(host) || wildcard ? [...LOOPBACK_NAMES, host] : [host];
  if (wildcard) {
    const { addresses, hostname } = local ?? localNames();
    names.push(...addresses, ...(hostname === '' ? [] : [hostname]));
  }
  return [...new Set(names.flatMap((name) => hostHeaders(name, port)))];
}

/**
 * DNS-rebinding protection: a request is served only when its Host header is one of the allowed
 * `host:port` values, and a browser `Origin`, if present, is loopback or names an allowed host.
 */
export class HostGuard {
  private readonly allowed: ReadonlySet<string>;

  /** @param allowedHosts accepted Host header values, `host:port` (compared case-insensitively). */
  constructor(allowedHosts: readonly string[]) {
    this.allowed = new Set(allowedHosts.map((entry) => entry.toLowerCase()));
  }

  /** The reason to refuse a request with 403, or undefined when it may pass. */
  refusal(headers: { host?: string | undefined; origin?: string | undefined }): string | undefined {
    const host = headers.host?.toLowerCase();
    if (host === undefined || !this.allowed.has(host)) return `Invalid Host header: ${headers.host ?? '(none)'}`;
    const origin = headers.origin;
    if (origin !== undefined && !this.allowsOrigin(origin)) return `Invalid Origin header: ${origin}`;
    return undefined;
  }

  private allowsOrigin(origin: string): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    return isLoopbackHost(url.hostname) || this.allowed.has(url.host.toLowerCase());
  }
}
