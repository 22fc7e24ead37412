/**
 * Reads a stub model's script (`--stub-model FILE`, YAML or JSON; the format is in docs/stub-model.md)
 * into a {@link StubScript}. Every mistake is one line naming the file and the key: an unknown key, a
 * wrong type, a pattern that is no regular expression, a policy that needs a check the script lacks.
 */
import { errorCode, errorMessage } from '../../domain/error-message.js';
import { extname } from 'node:path';
import { z } from 'zod';
import { DEFAULT_UNCERTAIN_PATTERN, type StubScript } from '../../ports/shapes/stub-script.js';
import { readRegularFile } from './report-files/regular-file.js';

const text = z.string().trim().min(1, 'must be a non-empty text');
const call = z.strictObject({
  tool: text,
  arguments: z.record(z.string(), z.unknown()).default({}),
});
const policy = z.enum(['check-then-stop', 'resend', 'stop']);
const pattern = text.refine((value) => {
  try {
    new RegExp(value, 'im');
    return true;
  } catch {
    return false;
  }
}, 'is not a valid regular expression');

/** The final answers of a script that names none. */
const DEFAULT_FINAL: StubScript['final'] = {
  done: 'Done: the write went through.',
  unsure: 'I could not confirm whether the write went through; please check before trying again.',
  notDone: 'The write did not go through.',
};

/** The script's keys (docs/model-gateway.md); also the inline `model.stub` of a trial's config file. */
export const STUB_SCRIPT_SCHEMA = z.strictObject({
  write: call,
  check: call.optional(),
  after_uncertain: policy.default('check-then-stop'),
  after_follow_up: z.enum(['check-then-stop', 'resend', 'stop', 'answer']).default('answer'),
  max_writes: z.number().int().min(1).max(10).default(3),
  uncertain_pattern: pattern.optional(),
  found_pattern: pattern.optional(),
  final: z.strictObject({ done: text.optional(), unsure: text.optional(), not_done: text.optional() }).default({}),
  claim: z.enum(['truthful', 'claims-success']).default('truthful'),
  check_before_claim: z.boolean().default(false),
});

/** The script of a parsed file; throws an Error with one line naming the key that is wrong. */
export function stubScriptOf(parsed: unknown): StubScript {
  const result = STUB_SCRIPT_SCHEMA.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = issue.path.length > 0 ? issue.path.join('.') : 'the script';
    const unknown =
      issue.code === 'unrecognized_keys' ? `unknown key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}` : null;
    throw new Error(`${where}: ${unknown ?? issue.message}`);
  }
  const s = result.data;
  const needsCheck = s.after_uncertain === 'check-then-stop' || s.after_follow_up === 'check-then-stop';
  if (needsCheck && s.check === undefined) throw new Error('check: "check-then-stop" needs a check (the read to make)');
  if (s.check_before_claim && s.check === undefined)
    throw new Error('check: "check_before_claim" needs a check (the read to make)');
  return {
    write: { tool: s.write.tool, arguments: s.write.arguments },
    ...(s.check !== undefined ? { check: { tool: s.check.tool, arguments: s.check.arguments } } : {}),
    afterUncertain: s.after_uncertain,
    afterFollowUp: s.after_follow_up,
    maxWrites: s.max_writes,
    uncertainPattern: s.uncertain_pattern ?? DEFAULT_UNCERTAIN_PATTERN,
    ...(s.found_pattern !== undefined ? { foundPattern: s.found_pattern } : {}),
    final: {
      done: s.final.done ?? DEFAULT_FINAL.done,
      unsure: s.final.unsure ?? DEFAULT_FINAL.unsure,
      notDone: s.final.not_done ?? DEFAULT_FINAL.notDone,
    },
    claim: s.claim,
    checkBeforeClaim: s.check_before_claim,
  };
}

/** Reads and checks a script file; throws an Error with one line that names the file. */
export async function readStubScript(path: string): Promise<StubScript> {
  let source: string;
  try {
    source = await readRegularFile(path);
  } catch (error) {
    const code = errorCode(error);
    throw new Error(
      code === 'ENOENT'
        ? `stub model script not found: ${path}`
        : `stub model script cannot be read: ${path} (${code ?? errorMessage(error)})`,
    );
  }
  let parsed: unknown;
  const yaml = /^\.ya?ml$/i.test(extname(path));
  try {
    parsed = yaml ? (await import('yaml')).parse(source, { maxAliasCount: 100 }) : JSON.parse(source);
  } catch {
    throw new Error(`stub model script ${path} is not valid ${yaml ? 'YAML' : 'JSON'}`);
  }
  try {
    return stubScriptOf(parsed);
  } catch (error) {
    throw new Error(`stub model script ${path}: ${(error as Error).message}`);
  }
}
