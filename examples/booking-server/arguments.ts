/**
 * Small readers for tool arguments. The low-level SDK `Server` does not validate arguments against the
 * input schema, so the handlers check them here and answer an `isError` result on bad input.
 */

/** Bad tool arguments; the message is shown to the agent. */
export class ArgumentError extends Error {}

/** A string argument; `required` makes a missing or empty value an error. */
export function readString(args: Record<string, unknown>, key: string, required: true): string;
/** A string argument that may be absent. */
export function readString(args: Record<string, unknown>, key: string, required?: false): string | undefined;
export function readString(args: Record<string, unknown>, key: string, required = false): string | undefined {
  const value = args[key];
  if (value === undefined || value === null) {
    if (required) throw new ArgumentError(`"${key}" is required`);
    return undefined;
  }
  if (typeof value !== 'string' || (required && value.trim() === '')) {
    throw new ArgumentError(`"${key}" must be a non-empty string`);
  }
  return value;
}

/** An optional number argument of at least `min`; `integer` also requires a whole number. */
export function readNumber(
  args: Record<string, unknown>,
  key: string,
  rule: { integer: boolean; min: number },
): number | undefined {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  const valid = typeof value === 'number' && Number.isFinite(value) && value >= rule.min;
  if (!valid || (rule.integer && !Number.isInteger(value))) {
    throw new ArgumentError(`"${key}" must be ${rule.integer ? 'an integer' : 'a number'} >= ${rule.min}`);
  }
  return value;
}

/** A date argument in the form YYYY-MM-DD that names a real calendar day. */
export function readDate(args: Record<string, unknown>, key: string, required: boolean): string | undefined {
  const value = required ? readString(args, key, true) : readString(args, key);
  if (value === undefined) return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const day = match === null ? undefined : new Date(`${value}T00:00:00Z`);
  if (day === undefined || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) {
    throw new ArgumentError(`"${key}" must be a date as YYYY-MM-DD, got ${JSON.stringify(value)}`);
  }
  return value;
}
