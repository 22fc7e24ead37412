/**
 * Reading the command line: `node:util` `parseArgs` splits it into tokens (long flags with their values,
 * short flags, positionals, `--`), told which flags take a value so that `--upstream-arg -y` gives `-y` to
 * the flag. What stays here are the project's own rules on top of its tokens: a value beginning with `--`
 * is never taken as a flag's value unless written `--flag=--value`, an unknown flag is refused
 * before anything else sees it (names such as `--__proto__` included), and every value stays the string
 * typed (`007`, `1e3`). cac then only dispatches the command and prints help, from the argv rebuilt with
 * `--flag=value` tokens (cac's own parser, mri, would take `-y` as a short flag and `1e3` as a number).
 */
import { parseArgs } from 'node:util';
import { isPlainObject } from '../domain/json.js';
import { UsageError } from './errors.js';

/** Raw values of the flags, by flag name, exactly as typed: `--runs=1e3` stays "1e3". */
export type FlagValues = Readonly<Record<string, readonly string[]>>;

/** A switch (`--otel`, `--audit-tools`): bare is on, or on/off after it; see `FlagSpec.wordAfterIsArgument`. */
export interface OnOffSwitch {
  wordAfterIsArgument: boolean;
}

/** A command line read: the flags' values, and the argv for cac with each value joined to its flag. */
export interface ReadArgv {
  values: FlagValues;
  /** `--flag value` rewritten `--flag=value`; short flags, positionals and everything after `--` as typed. */
  forDispatch: string[];
}

/**
 * Reads argv. `valueFlags` take a value, `switches` take none; any other long flag is refused with
 * "unknown flag". A value flag without its value (at the end, or followed by a `--` token) is one line
 * saying how to write it — unless help or version is asked for, which wins. `command`, when the flags are
 * that command's alone, is named in the refusal of an unknown flag.
 */
export function readArgv(
  argv: readonly string[],
  valueFlags: ReadonlySet<string>,
  switches: ReadonlySet<string>,
  command?: string,
  onOffSwitches: ReadonlyMap<string, OnOffSwitch> = new Map(),
): ReadArgv {
  type Option = { type: 'string' | 'boolean'; multiple: true };
  const options = Object.create(null) as Record<string, Option>;
  for (const flag of valueFlags) options[flag] = { type: 'string', multiple: true };
  for (const flag of [...switches, ...onOffSwitches.keys()]) options[flag] = { type: 'boolean', multiple: true };
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const values = new Map<string, string[]>();
  const forDispatch: string[] = [];
  const missing: string[] = [];
  const unknown: string[] = [];
  let wantsInfo = false;
  let lastIndex = -1;
  /** The positional a switch took as its on/off (`--audit-tools off`). */
  let taken = -1;
  for (const [i, token] of tokens.entries()) {
    if (i === taken) continue;
    if (token.kind === 'option-terminator') {
      forDispatch.push(...argv.slice(token.index));
      break;
    }
    if (token.kind === 'positional') {
      forDispatch.push(token.value);
      continue;
    }
    if (token.rawName === '-h' || token.rawName === '-v' || token.name === 'help' || token.name === 'version') wantsInfo = true;
    if (!token.rawName.startsWith('--')) {
      // A short flag (`-h`, `-v`, or a group `-abc`, one token per letter): for cac, as typed, once.
      if (token.index !== lastIndex) forDispatch.push(argv[token.index]!);
      lastIndex = token.index;
      continue;
    }
    const list = values.get(token.name) ?? [];
    values.set(token.name, list);
    const onOff = onOffSwitches.get(token.name);
    if (onOff !== undefined) {
      // A switch: `--otel=off` as written; `--otel off` takes the word after it (a switch whose word
      // after it is an argument of the command takes on or off only); bare `--otel` is on.
      const next = tokens[i + 1];
      let value = token.value;
      if (value === undefined && next?.kind === 'positional' && next.index === token.index + 1) {
        if (!onOff.wordAfterIsArgument || /^(on|off)$/i.test(next.value)) {
          value = next.value;
          taken = i + 1;
        }
      }
      list.push(value ?? 'on');
      forDispatch.push(`${token.rawName}=${value ?? 'on'}`);
    } else if (!valueFlags.has(token.name)) {
      if (!switches.has(token.name) && token.name !== 'help' && token.name !== 'version') unknown.push(token.name);
      if (token.value !== undefined) list.push(token.value);
      forDispatch.push(argv[token.index]!);
    } else if (token.value === undefined || (!token.inlineValue && token.value.startsWith('--'))) {
      // parseArgs took the next flag as this one's value; it is that flag (`--runs --help` asks for help).
      missing.push(token.rawName);
      forDispatch.push(token.rawName);
      if (token.value !== undefined) {
        forDispatch.push(token.value);
        if (token.value === '--help' || token.value === '--version') wantsInfo = true;
      }
    } else {
      list.push(token.value);
      forDispatch.push(`${token.rawName}=${token.value}`);
    }
  }
  if (!wantsInfo && missing.length > 0) {
    const flag = missing[0]!;
    throw new UsageError(
      `flag ${flag} needs a value (write ${flag}=<value>; a value beginning with -- must be written ${flag}=--value)`,
    );
  }
  if (unknown.length > 0)
    throw new UsageError(
      command === undefined
        ? `unknown flag --${unknown[0]}; see --help`
        : `unknown flag --${unknown[0]} for ${command}; see ${command} --help`,
    );
  return { values: Object.fromEntries(values), forDispatch };
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

/**
 * A switch's value as a boolean (on or off, either case); not given: `byDefault`. The one reader of every
 * switch: `readArgv` gives a bare switch the value `on`.
 */
export function onOff(value: string | undefined, flag: string, byDefault: boolean): boolean {
  if (value === undefined) return byDefault;
  const v = value.toLowerCase();
  if (v === 'on') return true;
  if (v === 'off') return false;
  throw new UsageError(`flag --${flag} must be on or off, got "${value}"`);
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

/** A flag's JSON text that must be an object; `what` names it in the error. */
export function jsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${what} is not JSON`);
  }
  if (!isPlainObject(value)) throw new UsageError(`${what} must be a JSON object`);
  return value;
}

/** `TOOL=JSON` (or `TOOL` alone unless `jsonRequired`): the tool name and its JSON object arguments. */
export function toolAndJson(value: string, flag: string, jsonRequired: boolean): [string, Record<string, unknown> | null] {
  const at = value.indexOf('=');
  if (at < 0) {
    if (jsonRequired) throw new UsageError(`flag --${flag} takes TOOL=JSON, e.g. create_payment='{"amount":5}', got "${value}"`);
    return [value, null];
  }
  const tool = value.slice(0, at).trim();
  if (tool === '') throw new UsageError(`flag --${flag} needs a tool name before "="`);
  return [tool, jsonObject(value.slice(at + 1), `the JSON of --${flag} ${tool}`)];
}
