import { isIPv4 } from 'node:net';

/** The loopback names an agent on this machine may put in a Host header. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARD_HOSTS = ['0.0.0.0', '::'];

/** True for `localhost`, `127.x.x.x` and `::1` (with or without brackets). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  if (name === 'localhost' || name === '::1' || name === '[::1]') return true;
  return isIPv4(name) && name.startsWith('127.');
}

/** `host:port` as it appears in a Host header (IPv6 in brackets, lower case). */
function hostHeader(host: string, port: number): string {
  const name = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${name}:${port}`.toLowerCase();
}

/**
 * The Host header values accepted by default for a server bound to `host:port`: the loopback names
 * for a loopback or wildcard bind, plus the bound host itself.
 */
export function defaultAllowedHosts(host: string, port: number): string[] {
  const names = isLoopbackHost(host) || WILDCARD_HOSTS.includes(host) ? [...LOOPBACK_NAMES, host] : [host];
  return [...new Set(names.map((name) => hostHeader(name, port)))];
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
