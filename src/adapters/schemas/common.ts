/**
 * What the file schemas share: the small field types, the compile-time check that a schema and the
 * domain's (or port's) type describe the same JSON, the `schemaVersion` rule, and the one-line message
 * naming the first wrong field.
 *
 * Objects are `z.object`: a reader drops the fields it does not know (a newer harness may add some; an
 * added field keeps the version), and the generated JSON Schema (`io: 'input'`) allows them.
 */
import { z } from 'zod';

export const CERTIFICATION = z
  .literal('UNVERIFIED_FOR_PRODUCTION')
  .describe('Always this text: nothing here certifies an agent.');
export const verdict = z.enum(['PASS', 'FAIL', 'NOT_TESTED']);
export const count = z.number().int().nonnegative();
/** A score out of 100 (the overall score and each dimension): anything else is not the harness's. */
export const percent = z.number().min(0).max(100);

/**
 * `schemaVersion` of a file this harness writes as `version`. Files written before the field existed
 * (harness 0.7.0 and earlier) have none and are read as that version: their shape is the same apart from
 * the renames each reader maps. A file of another version is refused, naming it.
 */
export function schemaVersion<V extends number>(version: V) {
  return z
    .literal(version)
    .optional()
    .describe(`The file format's version (${version}); absent in files written by harness 0.7.0 and earlier.`);
}

/** Compile time: `true` only when A and B are assignable to each other (the same JSON shape). */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compile time: fails to type-check unless its argument is `true` (use with {@link Same}). */
export function sameShape<T extends true>(): T | undefined {
  return undefined;
}

/** The first problem zod found, as `field.path: what is wrong`. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const path = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
  return `${path === '' ? 'the document' : path}: ${issue.message}`;
}

/** Parses with `schema`; throws an Error naming the first wrong field (and a wrong `schemaVersion` first). */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, expectedVersion: number | null): z.output<S> {
  if (expectedVersion !== null && typeof value === 'object' && value !== null && Object.hasOwn(value, 'schemaVersion')) {
    const found = (value as { schemaVersion: unknown }).schemaVersion;
    if (found !== expectedVersion)
      throw new Error(
        `schemaVersion: ${JSON.stringify(found)} is not a version this harness reads (${expectedVersion}); it was written by another harness version`,
      );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(firstIssue(parsed.error));
  return parsed.data;
}
