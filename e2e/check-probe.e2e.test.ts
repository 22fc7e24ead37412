/**
 * `check` on the file the compiled `probe --json` wrote, both as real processes in front of the payments
 * fixtures (docs/probe.md): a server that ignores the key BREAKS (a JUnit failure naming the probes, exit
 * 2), the Stripe-like server KEEPS (exit 0), and the HTML page renders the cases.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, FIXTURES } from '../test/support/proxy-harness.js';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'check-probe-e2e-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const probe = (server: string, json: string) =>
  cli([
    'probe',
    '--upstream-command',
    process.execPath,
    '--upstream-arg',
    join(FIXTURES, server),
    '--tools',
    'create_payment',
    '--example',
    'create_payment={"amount":5,"currency":"EUR"}',
    '--count-with',
    'list_items',
    '--json',
    json,
  ]);

interface JunitCase {
  name: string;
  classname: string;
  failure?: { message: string; '#text'?: string };
}

function junitCases(file: string): { tests: string; failures: string; cases: JunitCase[] } {
  const xml = readFileSync(join(dir, file), 'utf8');
  expect(XMLValidator.validate(xml)).toBe(true);
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
    testsuites: { tests: string; failures: string; testsuite: { testcase: JunitCase | JunitCase[] } };
  };
  const { testcase } = parsed.testsuites.testsuite;
  return {
    tests: parsed.testsuites.tests,
    failures: parsed.testsuites.failures,
    cases: Array.isArray(testcase) ? testcase : [testcase],
  };
}

describe('check on probe results, the compiled CLI', { timeout: 90_000 }, () => {
  it('a server that ignores the key: the tool BREAKS, a JUnit failure naming the probes that broke it, exit 2', async () => {
    expect((await probe('key-ignoring-server.mjs', 'ignore.json')).code).toBe(2);
    const result = await cli(['check', 'ignore.json', '--junit', 'ignore.xml', '--html', 'ignore.html']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('FAIL');
    expect(result.stdout).toContain('BREAKS its idempotency promise: P1 double_created');
    const junit = junitCases('ignore.xml');
    expect([junit.tests, junit.failures]).toEqual(['1', '1']);
    const [only] = junit.cases;
    expect(only!.name).toBe('create_payment (ignore.json)');
    expect(only!.failure).toBeDefined();
    const failure = JSON.stringify(only!.failure);
    for (const broken of [
      'P1 double_created',
      'P2 silent_new_result',
      'P3 double_created',
      'P5 double_created',
      'P9 double_created',
    ])
      expect(failure).toContain(broken);
    const html = readFileSync(join(dir, 'ignore.html'), 'utf8');
    expect(html).toContain('create_payment');
    expect(html).toContain('BREAKS its idempotency promise');
  });

  it('the Stripe-like server: the tool KEEPS, a JUnit pass, exit 0', async () => {
    expect((await probe('stripe-keys-server.mjs', 'stripe.json')).code).toBe(0);
    const result = await cli(['check', 'stripe.json', '--junit', 'stripe.xml']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('KEEPS its idempotency promise');
    const junit = junitCases('stripe.xml');
    expect([junit.tests, junit.failures]).toEqual(['1', '0']);
    expect(junit.cases[0]!.failure).toBeUndefined();
  });

  it('a malformed probe results file: one harness error naming the field, exit 1, no stack trace', async () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ schemaVersion: 1, kind: 'probe-results', harnessVersion: 't' }));
    const result = await cli(['check', 'bad.json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('bad.json: the file is not a valid probe results file: exitCode:');
    expect(`${result.stdout}${result.stderr}`).not.toContain('    at ');
  });
});
