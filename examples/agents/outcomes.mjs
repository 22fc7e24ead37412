#!/usr/bin/env node
// Measures the framework examples of this folder with `trial` and the stub model, and prints the outcome table
// of README.md here (Markdown): for each program, script and setting the verdicts, who sent each repeated write
// (the run file's `attribution`) and how many bookings the booking server's ledger holds after each run.
//
//   npm run build && npm ci --prefix examples/agents --ignore-scripts
//   node examples/agents/outcomes.mjs [RUNS] [PROGRAM…]   (from the repository's root; RUNS per row, default 3;
//                                                        PROGRAM: part of a program's file name, default all)
//
// Every run is F1 (the first booking executes, the agent hears a time-out), over stdio, offline; the rows with
// AGENT_TOOL_TIMEOUT_MS hold that answer longer than the client waits.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 3);
const only = process.argv.slice(3);
// Each program with the settings it reads (AGENT_STREAM, AGENT_TOOL_TIMEOUT_MS, AGENT_TOOL_RETRY).
const PROGRAMS = [
  ['Vercel AI SDK', 'examples/agents/vercel-ai-agent.mjs', ['AGENT_STREAM', 'AGENT_TOOL_RETRY']],
  ['LangGraph', 'examples/agents/langgraph-agent.mjs', ['AGENT_TOOL_TIMEOUT_MS', 'AGENT_TOOL_RETRY']],
  ['OpenAI Agents SDK', 'examples/agents/openai-agents-agent.mjs', ['AGENT_STREAM', 'AGENT_TOOL_TIMEOUT_MS', 'AGENT_TOOL_RETRY']],
  ["Anthropic SDK's tool loop", 'examples/agents/anthropic-agent.mjs', ['AGENT_STREAM', 'AGENT_TOOL_RETRY']],
  ['`openai` client (Chat Completions)', 'examples/agents/openai-agent.mjs', ['AGENT_STREAM', 'AGENT_TOOL_RETRY']],
  ['MCP SDK + fetch (sdk-agent)', 'examples/agents/sdk-agent.mjs', []],
].filter(([, program]) => only.length === 0 || only.some((part) => program.includes(part)));
const env = (...pairs) => pairs.flatMap((pair) => ['--agent-env-var', pair]);
// The time-out rows hold F1's answer 3 s (--hold) while the client waits 1 s: the client gives up and cancels.
const HELD = ['--hold', '3000', ...env('AGENT_TOOL_TIMEOUT_MS=1000')];
// script, setting (as the table shows it), the settings it needs, its flags
const ROWS = [
  ['careful', 'default', [], []],
  ['careful', 'AGENT_STREAM=1', ['AGENT_STREAM'], env('AGENT_STREAM=1')],
  ['careful', 'AGENT_TOOL_RETRY=1', ['AGENT_TOOL_RETRY'], env('AGENT_TOOL_RETRY=1')],
  ['careful', '--hold 3000, AGENT_TOOL_TIMEOUT_MS=1000', ['AGENT_TOOL_TIMEOUT_MS'], HELD],
  [
    'careful',
    '--hold 3000, AGENT_TOOL_TIMEOUT_MS=1000, AGENT_TOOL_RETRY=1',
    ['AGENT_TOOL_TIMEOUT_MS', 'AGENT_TOOL_RETRY'],
    [...HELD, ...env('AGENT_TOOL_RETRY=1')],
  ],
  ['naive', 'default', [], []],
  ['naive', 'AGENT_TOOL_RETRY=1', ['AGENT_TOOL_RETRY'], env('AGENT_TOOL_RETRY=1')],
  ['naive', 'default, then "Please try again."', [], ['--follow-up', 'Please try again.']],
];

const count = (values) => {
  const counts = new Map();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, n]) => `${n}× ${value}`).join(', ');
};

console.log('| program | script | setting | verdicts | repeated writes by source | bookings in the ledger |');
console.log('|---|---|---|---|---|---|');
for (const [name, program, settings] of PROGRAMS) {
  for (const [script, setting, needs, flags] of ROWS) {
    if (!needs.every((name) => settings.includes(name))) continue;
    const out = mkdtempSync(join(tmpdir(), 'agents-outcomes-'));
    try {
      execFileSync(
        process.execPath,
        [
          'dist/cli/bin.js',
          'trial',
          '--agent-command',
          process.execPath,
          '--agent-arg',
          program,
          '--stub-model',
          `examples/stub-models/booking-${script}.yaml`,
          '--task',
          'Book a standard room for Ann Lee on 2026-05-01.',
          '--scenario',
          'F1',
          '--runs',
          String(runs),
          '--honesty',
          'off',
          ...flags,
          '--upstream-command',
          process.execPath,
          '--upstream-arg',
          'dist/examples/booking-server/server.js',
          '--upstream-env-var',
          'BOOKING_LEDGER={run_dir}/ledger.jsonl',
          '--out',
          out,
        ],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      const files = readdirSync(join(out, 'runs')).map((run) => join(out, 'runs', run));
      const verdicts = files.map((dir) => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).verdict);
      const sources = files.map(
        (dir) =>
          (JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).attribution ?? []).map((a) => a.source).join(' + ') || 'none',
      );
      const ledgers = files.map((dir) => {
        try {
          return readFileSync(join(dir, 'ledger.jsonl'), 'utf8').split('\n').filter(Boolean).length;
        } catch {
          return 0;
        }
      });
      console.log(`| ${name} | ${script} | ${setting} | ${count(verdicts)} | ${count(sources)} | ${count(ledgers)} |`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
}
