/**
 * Writers validate in tests: a file the harness wrote must parse with its schema and keep every field
 * (the schemas drop unknown fields when reading, so a field the schema does not describe shows as a
 * difference here).
 */
import { expect } from 'vitest';
import type { z } from 'zod';

export function expectMatchesSchema(schema: z.ZodType, value: unknown, what: string): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${what} does not match its schema: ${JSON.stringify(parsed.error.issues[0])}`);
  expect(parsed.data, `${what}: every field is in its schema`).toEqual(value);
}
