/**
 * `--otel` and its flags (R-18, `docs/traces.md`), shared by every command that exports traces: where the
 * spans go (`--otel-endpoint`, else the standard `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` /
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, else a collector on this machine), the service's name
 * (`OTEL_SERVICE_NAME`) and whether arguments and answers go in the spans (`--otel-payloads on`). Nothing
 * is exported without `--otel`. The headers (`OTEL_EXPORTER_OTLP_HEADERS`) are read by the exporter and
 * never here, so no message can print them.
 */
import { onOff, single, type FlagValues } from './argv.js';
import { UsageError } from './errors.js';

export const DEFAULT_SERVICE_NAME = 'cuonztech-agent-harness';
/** OTLP/HTTP's default on this machine (a local collector or Jaeger all-in-one). */
export const DEFAULT_TRACES_ENDPOINT = 'http://localhost:4318/v1/traces';

/** `--otel` and the flags that say how it exports (their help lines are the spec's, `flag-spec.ts`). */
export const OTEL_FLAGS: readonly string[] = ['otel', 'otel-endpoint', 'otel-payloads'];
/** The flags that are for `--otel` only. */
const OTEL_SETTINGS = OTEL_FLAGS.filter((flag) => flag !== 'otel');

export interface OtelSettings {
  /** The traces URL the spans are posted to. */
  endpoint: string;
  serviceName: string;
  payloads: boolean;
}

/** A base URL as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it, with the traces path added (unless it has it). */
function tracesUrl(base: URL): string {
  if (base.pathname.endsWith('/v1/traces')) return base.href;
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  return url.href;
}

/** `value` as an http(s) URL, or null when it is none. */
function httpUrlOrNull(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** An endpoint variable's URL (its value is never printed: it may hold a token); undefined when unset. */
function envUrl(env: Record<string, string | undefined>, name: string): URL | undefined {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return undefined;
  const url = httpUrlOrNull(value);
  if (url === null) throw new UsageError(`${name} must be an http(s) URL (it is what --otel exports to)`);
  return url;
}

function flagUrl(value: string): URL {
  const url = httpUrlOrNull(value);
  if (url === null) throw new UsageError(`flag --otel-endpoint must be an http(s) URL, got "${value}"`);
  if (url.username !== '' || url.password !== '')
    throw new UsageError('flag --otel-endpoint must not contain credentials: put them in OTEL_EXPORTER_OTLP_HEADERS');
  return url;
}

/** The `--otel` settings, or null without `--otel` (its flags alone are refused). */
export function parseOtelFlags(values: FlagValues, env: Record<string, string | undefined>): OtelSettings | null {
  const on = onOff(single(values, 'otel'), 'otel', false);
  const given = OTEL_SETTINGS.find((flag) => Object.hasOwn(values, flag));
  if (!on) {
    if (given !== undefined) throw new UsageError(`--${given} is for --otel: give --otel too`);
    return null;
  }
  const flag = single(values, 'otel-endpoint');
  const payloads = onOff(single(values, 'otel-payloads'), 'otel-payloads', false);
  // The traces endpoint is taken as it is (the OTLP specification's rule); the generic one gets /v1/traces.
  const tracesEnv = envUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseEnv = envUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const endpoint =
    flag !== undefined
      ? tracesUrl(flagUrl(flag))
      : tracesEnv !== undefined
        ? tracesEnv.href
        : baseEnv !== undefined
          ? tracesUrl(baseEnv)
          : DEFAULT_TRACES_ENDPOINT;
  const serviceName = env['OTEL_SERVICE_NAME']?.trim() || DEFAULT_SERVICE_NAME;
  return { endpoint, serviceName, payloads };
}

/** The endpoint as it may be printed: no user, password, query or fragment. */
export function printableEndpoint(endpoint: string): string {
  const url = new URL(endpoint);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.href;
}
