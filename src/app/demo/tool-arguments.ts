/**
 * Reading a demo tool's arguments without trusting them: own properties only (an own `__proto__` key is
 * just an unknown field, never the prototype), unknown fields refused, types checked by hand.
 */
import { isPlainObject, ownKeys, ownValue } from '../../domain/json.js';

/** A short, safe description of a refused value (never serialises a deep or huge value). */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' && value !== null ? 'an object' : String(value);
}

/** A refused argument: the message is shown to the agent in an `isError` result. */
export class ArgumentError extends Error {
  override readonly name = 'ArgumentError';
}

/** The own fields of a tool call's arguments, restricted to `allowed`. */
export class ToolArguments {
  private constructor(private readonly fields: object) {}

  /** Wraps `raw` (absent means `{}`); throws an ArgumentError for a non-object or an unknown field. */
  static read(raw: unknown, allowed: readonly string[]): ToolArguments {
    if (raw === undefined || raw === null) return new ToolArguments({});
    if (!isPlainObject(raw)) throw new ArgumentError('arguments must be an object');
    const unknown = ownKeys(raw).filter((key) => !allowed.includes(key));
    if (unknown.length > 0) {
      const known = allowed.length > 0 ? `; known: ${allowed.join(', ')}` : '; this tool takes none';
      const names = unknown.slice(0, 5).map(shown).join(', ') + (unknown.length > 5 ? ', …' : '');
      throw new ArgumentError(`unknown argument(s) ${names}${known}`);
    }
    return new ToolArguments(raw);
  }

  /** Whether the field was given (an explicit `null` counts as not given). */
  has(name: string): boolean {
    const value = ownValue(this.fields, name);
    return value !== undefined && value !== null;
  }

  /** The raw value of a field, `undefined` when absent or null. */
  raw(name: string): unknown {
    const value = ownValue(this.fields, name);
    return value === null ? undefined : value;
  }

  /** A string field; `undefined` when absent. */
  optionalString(name: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') throw new ArgumentError(`${name} must be a non-empty string`);
    return value;
  }

  /** A required non-empty string field. */
  string(name: string): string {
    const value = this.optionalString(name);
    if (value === undefined) throw new ArgumentError(`${name} is required`);
    return value;
  }

  /** A string field that must be one of `choices` (compared case-insensitively, returned as listed). */
  choice<T extends string>(name: string, choices: readonly T[]): T | undefined {
    const value = this.optionalString(name);
    if (value === undefined) return undefined;
    const match = choices.find((choice) => choice.toLowerCase() === value.toLowerCase());
    if (match === undefined) throw new ArgumentError(`${name} must be one of ${choices.join(', ')}, got ${shown(value)}`);
    return match;
  }

  /** A finite number field within [min, max], optionally an integer. */
  number(name: string, min: number, max: number, integer: boolean): number | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const ok =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      value >= min &&
      value <= max &&
      (!integer || Number.isInteger(value));
    if (!ok)
      throw new ArgumentError(
        `${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${shown(value)}`,
      );
    return value;
  }

  /** A non-empty list of non-empty strings. */
  stringList(name: string): string[] | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const ok = Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item.trim() !== '');
    if (!ok) throw new ArgumentError(`${name} must be a non-empty list of non-empty strings`);
    return [...(value as string[])];
  }
}
