/**
 * `--listen` on an address other machines can reach: the proxy has no authentication, so say so on
 * stderr at start-up (the Host/Origin check stops a browser tricked by DNS rebinding, not a program that
 * sends any Host header it likes).
 */

/** The warning line for a `--listen` value whose host is not loopback; undefined for a loopback bind. */
export function listenWarning(listen: string, hostIsLoopback: boolean): string | undefined {
  if (hostIsLoopback) return undefined;
  return (
    `WARNING: --listen ${listen} is reachable from other machines. The proxy has no authentication: anyone who ` +
    "reaches this port can call your upstream's tools through it (the Host/Origin check stops browsers, not other " +
    'programs). Use 127.0.0.1 unless you need this.'
  );
}
