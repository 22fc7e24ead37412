/**
 * Strict flag handling on top of cac. cac (mri) would take `-y` after `--upstream-arg` as a short flag
 * and a number-looking value as a number, so the argv is normalised first: `--flag value` becomes
 * `--flag=value` for every flag that takes a value, unless the value begins with `--` (R-8.1: such a
 * value is never taken as the flag's value; write `--flag=--value`). All values stay strings.
 */
import { UsageError } from './errors.js';

/** Joins each value flag with its value: `["--a", "x"]` → `["--a=x"]`. */
export function normaliseArgv(argv: readonly string[], valueFlags: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    const next = argv[i + 1];
    if (token.startsWith('--') && !token.includes('=') && valueFlags.has(token.slice(2))) {
      if (next === undefined || next.startsWith('--'))
        throw new UsageError(
          `flag ${token} needs a value (write ${token}=<value>; a value beginning with -- must be written ${token}=--value)`,
        );
      out.push(`${token}=${next}`);
      i++;
    } else out.push(token);
  }
  return out;
}

/** Raw values of the flags, by flag name, exactly as typed: `--runs=1e3` stays "1e3". */
export type FlagValues = Readonly<Record<string, readonly string[]>>;

/**
 * The values of a normalised argv (`--flag=value` tokens), read here rather than from cac: cac (mri)
 * turns number-looking values into numbers (`007` → 7, `1e3` → 1000, `0x10` → 16), and reports a typed
 * option that was not given as the string "undefined". Tokens after `--` are not flags.
 */
export function flagValues(argv: readonly string[]): FlagValues {
  const values = new Map<string, string[]>();
  for (const token of argv) {
    if (token === '--') break;
    if (!token.startsWith('--')) continue;
    const at = token.indexOf('=');
    const flag = at < 0 ? token.slice(2) : token.slice(2, at);
    const list = values.get(flag) ?? [];
    if (at >= 0) list.push(token.slice(at + 1));
    values.set(flag, list);
  }
  return Object.fromEntries(values);
}

/** The long flag names of an argv (`--name` or `--name=value`), up to `--`. */
export function flagNames(argv: readonly string[]): string[] {
  return Object.keys(flagValues(argv));
}

/** Reads a flag that may be given once: a non-empty string, or undefined when absent. */
export function single(values: FlagValues, flag: string): string | undefined {
  const list = Object.hasOwn(values, flag) ? values[flag]! : undefined;
  if (list === undefined) return undefined;
  if (list.length > 1) throw new UsageError(`flag --${flag} was given ${list.length} times; give it once`);
  const [only] = list;
  if (only === undefined) throw new UsageError(`flag --${flag} needs a value`);
  if (only.trim() === '') throw new UsageError(`flag --${flag} needs a non-empty value`);
  return only;
}

/** Reads a repeatable flag: every value a non-empty string. */
export function repeated(values: FlagValues, flag: string): string[] {
  const list = Object.hasOwn(values, flag) ? values[flag]! : [];
  if (list.length === 0 && Object.hasOwn(values, flag)) throw new UsageError(`flag --${flag} needs a value`);
  return list.map((v) => {
    if (v === '') throw new UsageError(`flag --${flag} needs a non-empty value`);
    return v;
  });
}

/** Splits a comma list, refusing empty items (`a,,b`). */
export function commaList(value: string, flag: string): string[] {
  const items = value.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw new UsageError(`flag --${flag} has an empty item in "${value}"`);
  return items;
}

/** Parses a decimal number within bounds; rejects `1e3`-style surprises only where `integer` is asked. */
export function numberIn(value: string, flag: string, min: number, max: number, integer = false): number {
  const pattern = integer ? /^\d+$/ : /^(\d+(\.\d*)?|\.\d+)$/;
  const n = Number(value);
  if (!pattern.test(value.trim()) || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`flag --${flag} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

/** Splits `KEY=VALUE`; the key must be a plausible environment variable name. */
export function keyValue(value: string, flag: string): [string, string] {
  const at = value.indexOf('=');
  const key = at <= 0 ? '' : value.slice(0, at);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new UsageError(`flag --${flag} needs KEY=VALUE, got "${value}"`);
  return [key, value.slice(at + 1)];
}

/** Parses an http(s) URL without credentials in it; `credentialsFlag` is the flag that carries them instead. */
export function httpUrl(value: string, flag: string, credentialsFlag: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`flag --${flag} must be an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`flag --${flag} must be an http(s) URL, got "${value}"`);
  if (url.username !== '' || url.password !== '')
    throw new UsageError(`flag --${flag} must not contain credentials; use --${credentialsFlag}`);
  return url;
}
