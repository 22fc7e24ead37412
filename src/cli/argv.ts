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
      if (next === undefined || next.startsWith('--')) throw new UsageError(`flag ${token} needs a value (write ${token}=<value>; a value beginning with -- must be written ${token}=--value)`);
      out.push(`${token}=${next}`);
      i++;
    } else out.push(token);
  }
  return out;
}

/**
 * The long flags present in a normalised argv. cac reports a typed option that was NOT given as the
 * string "undefined", so presence is decided from the argv itself.
 */
export function givenFlags(argv: readonly string[]): Set<string> {
  const given = new Set<string>();
  for (const token of argv) {
    if (token === '--') break;
    if (token.startsWith('--')) given.add(token.slice(2).split('=')[0]!);
  }
  return given;
}

/** Keeps only the options whose flag was really given (keys in cac's camelCase). */
export function presentOptions(options: Record<string, unknown>, given: ReadonlySet<string>): Record<string, unknown> {
  const present: Record<string, unknown> = {};
  for (const flag of given) {
    const key = flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (Object.hasOwn(options, key)) present[key] = options[key];
  }
  return present;
}

/** Reads a flag that may be given once: a non-empty string, or undefined when absent. */
export function single(options: Record<string, unknown>, key: string, flag: string): string | undefined {
  const value = options[key];
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (list.length > 1) throw new UsageError(`flag --${flag} was given ${list.length} times; give it once`);
  const [only] = list;
  if (typeof only !== 'string') throw new UsageError(`flag --${flag} needs a value`);
  if (only.trim() === '') throw new UsageError(`flag --${flag} needs a non-empty value`);
  return only;
}

/** Reads a repeatable flag: every value a non-empty string. */
export function repeated(options: Record<string, unknown>, key: string, flag: string): string[] {
  const value = options[key];
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((v) => {
    if (typeof v !== 'string') throw new UsageError(`flag --${flag} needs a value`);
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
