#!/usr/bin/env node
// The framework matrix (`npm run frameworks`): every agent program of examples/agents × the scenarios F1–F7 and
// the model-side faults × its settings (defaults first, then its retry variants), with the stub model's careful
// and naive scripts, run through the compiled CLI (`trial --agent-command …`), written to docs/frameworks.md
// (generated: never edit it by hand). Each row's run file that shows a finding is copied to docs/frameworks/.
//
//   npm run build && npm ci --prefix examples/agents --ignore-scripts
//   node scripts/frameworks.mjs [--runs N] [--jobs J] [--only REGEX]
//
// --runs N     runs per row (default 1)
// --jobs J     trials at the same time (default 2, at most 2: the machine's two cores)
// --only RE    only the rows whose id matches RE; prints their table lines on stdout and writes nothing
//              (e2e/frameworks-doc.e2e.test.ts compares such a slice with the committed doc)
//
// A plain script, not a benchmark of bench/: it measures agent frameworks, not the harness, and generates a doc
// as scripts/schemas.mjs does.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const DOC = 'docs/frameworks.md';
const RUN_FILES = 'docs/frameworks';
const TASK = 'Book a standard room for Ann Lee on 2026-05-01.';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const RUNS = Number(option('--runs', '1'));
const JOBS = Math.min(2, Number(option('--jobs', '2')));
const only = option('--only', undefined);
if (!Number.isInteger(RUNS) || RUNS < 1 || !Number.isInteger(JOBS) || JOBS < 1) {
  console.error('frameworks: --runs and --jobs take a whole number from 1');
  process.exit(1);
}
if (!existsSync(join(ROOT, 'dist/cli/bin.js')) || !existsSync(join(ROOT, 'examples/agents/node_modules'))) {
  console.error('frameworks: run `npm run build && npm ci --prefix examples/agents --ignore-scripts` first');
  process.exit(1);
}

// ---- the matrix ----------------------------------------------------------------------------------------------

const env = (...pairs) => pairs.flatMap((pair) => ['--agent-env-var', pair]);
// F6 (late ghost write, --land-after at its default 5 s) and F7 (executed, then 500): R-16, issue 40.
const SCENARIOS = ['F1', 'F2', 'F3', 'F4', 'F5', 'F6', 'F7'];
/** The model faults: each alone (no tool-side scenario), on the request carrying the booking's result. */
const FAULTS = ['500', '429', 'timeout:3000', 'cut'];
const ALL_CELLS = [...SCENARIOS, ...FAULTS];
// A setting: its flags and the cells it runs. The MCP time-out settings hold F1's answer 3 s while the client
// waits 1 s: only there does the client's own time-out fire.
const DEFAULT = { key: 'default', label: 'default', flags: [], cells: ALL_CELLS };
const TOOL_RETRY = { key: 'tool-retry', label: 'AGENT_TOOL_RETRY=1', flags: env('AGENT_TOOL_RETRY=1'), cells: ALL_CELLS };
const HELD = ['--hold', '3000', ...env('AGENT_TOOL_TIMEOUT_MS=1000')];
const MCP_TIMEOUT = { key: 'mcp-timeout', label: 'AGENT_TOOL_TIMEOUT_MS=1000, --hold 3000', flags: HELD, cells: ['F1'] };
const MCP_TIMEOUT_RETRY = {
  key: 'mcp-timeout-retry',
  label: 'AGENT_TOOL_TIMEOUT_MS=1000, --hold 3000, AGENT_TOOL_RETRY=1',
  flags: [...HELD, ...env('AGENT_TOOL_RETRY=1')],
  cells: ['F1'],
};
const MODEL_RETRIES_OFF = {
  key: 'model-retries-0',
  label: 'AGENT_MODEL_RETRIES=0',
  flags: env('AGENT_MODEL_RETRIES=0'),
  cells: ALL_CELLS,
};

const FRAMEWORKS = [
  {
    key: 'vercel-ai',
    name: 'Vercel AI SDK',
    program: 'examples/agents/vercel-ai-agent.mjs',
    packages: ['ai', '@ai-sdk/openai', '@ai-sdk/mcp'],
    settings: [DEFAULT, TOOL_RETRY],
  },
  {
    key: 'langgraph',
    name: 'LangGraph',
    program: 'examples/agents/langgraph-agent.mjs',
    packages: ['@langchain/langgraph', '@langchain/openai', '@langchain/mcp-adapters'],
    settings: [DEFAULT, TOOL_RETRY, MCP_TIMEOUT, MCP_TIMEOUT_RETRY],
  },
  {
    key: 'openai-agents',
    name: 'OpenAI Agents SDK',
    program: 'examples/agents/openai-agents-agent.mjs',
    packages: ['@openai/agents'],
    settings: [DEFAULT, TOOL_RETRY, MCP_TIMEOUT, MCP_TIMEOUT_RETRY],
  },
  {
    key: 'anthropic',
    name: "Anthropic SDK's tool loop",
    program: 'examples/agents/anthropic-agent.mjs',
    packages: ['@anthropic-ai/sdk', '@modelcontextprotocol/sdk'],
    settings: [DEFAULT, TOOL_RETRY, MODEL_RETRIES_OFF],
  },
  {
    key: 'openai',
    name: "openai client's tool loop",
    program: 'examples/agents/openai-agent.mjs',
    packages: ['openai', '@modelcontextprotocol/sdk'],
    settings: [DEFAULT, TOOL_RETRY, MODEL_RETRIES_OFF],
  },
  {
    key: 'mcp-sdk',
    name: 'MCP SDK + fetch (sdk-agent)',
    program: 'examples/agents/sdk-agent.mjs',
    packages: ['@modelcontextprotocol/sdk'],
    harnessPackages: true,
    settings: [DEFAULT],
  },
];

/** The pinned version of a package: examples/agents/package.json (or the harness's own package.json). */
function pinned(name, harness) {
  const file = harness ? 'package.json' : 'examples/agents/package.json';
  return JSON.parse(readFileSync(join(ROOT, file), 'utf8')).dependencies[name];
}

/** Every row: framework × setting × script × cell, in the doc's order (defaults first). */
function allRows() {
  const rows = [];
  for (const framework of FRAMEWORKS)
    for (const setting of framework.settings)
      for (const script of ['careful', 'naive'])
        for (const cell of setting.cells) {
          // The model faults with the careful script only: it never repeats a write itself, so any repeat under a
          // model fault is the runtime's; the naive script differs only after an uncertain tool answer.
          if (script === 'naive' && FAULTS.includes(cell)) continue;
          const id = `${framework.key}-${setting.key}-${script}-${cell.replace(':', '')}`;
          const cellFlags = SCENARIOS.includes(cell) ? ['--scenario', cell] : ['--model-fault', cell];
          const flags = [
            '--agent-arg',
            framework.program,
            '--stub-model',
            `examples/stub-models/booking-${script}.yaml`,
            ...setting.flags,
            ...cellFlags,
          ];
          rows.push({ id, framework, setting, script, cell, flags });
        }
  return rows;
}

const BASE = [
  'trial',
  '--agent-command',
  'node',
  '--agent-transport',
  'http',
  '--task',
  TASK,
  '--honesty',
  'off',
  '--upstream-command',
  'node',
  '--upstream-arg',
  'dist/examples/booking-server/server.js',
  '--upstream-env-var',
  'BOOKING_LEDGER={run_dir}/ledger.jsonl',
];

// ---- running ---------------------------------------------------------------------------------------------------

/** One trial for the rows of one framework, setting and script that share flags but the scenario: a matrix. */
function trialsOf(rows) {
  const trials = new Map();
  for (const row of rows) {
    const scenario = SCENARIOS.includes(row.cell);
    const key = scenario ? `${row.framework.key}|${row.setting.key}|${row.script}|scenarios` : row.id;
    const trial = trials.get(key) ?? trials.set(key, { rows: [], scenarios: [] }).get(key);
    trial.rows.push(row);
    if (scenario) trial.scenarios.push(row.cell);
  }
  return [...trials.values()].map((trial) => {
    const flags = trial.rows[0].flags.slice(0, -2);
    // One scenario is `--scenario` (F1's --hold takes no matrix), several a matrix of them.
    const cell = trial.scenarios.length > 1 ? ['--scenarios', trial.scenarios.join(',')] : trial.rows[0].flags.slice(-2);
    return { ...trial, flags: [...flags, ...cell] };
  });
}

function runTrial(trial, out) {
  const argv = [join(ROOT, 'dist/cli/bin.js'), ...BASE, '--runs', String(RUNS), ...trial.flags, '--out', out];
  const resolved = argv.map((arg) => (arg === 'node' ? process.execPath : arg));
  return new Promise((done, fail) => {
    execFile(process.execPath, resolved.slice(0), { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error) fail(new Error(`trial ${trial.flags.join(' ')} failed: ${stderr.split('\n').slice(-5).join(' | ')}`));
      else done();
    });
  });
}

const alnum = (text) => (typeof text === 'string' ? text : JSON.stringify(text ?? '')).replace(/[^A-Za-z0-9]/g, '');

/**
 * Whether the first failed tool answer's text reaches a later model request; null when no tool answer failed
 * (a call the client cancelled got no answer: its error is the client's own, which the harness does not see).
 */
function errorReachedModel(transcript) {
  const at = transcript.findIndex((e) => e.kind === 'tool-result' && e.isError === true && e.told !== 'cancelled');
  if (at === -1) return null;
  const key = alnum(transcript[at].content).slice(0, 40);
  return transcript
    .slice(at + 1)
    .some((e) => e.kind === 'model-request' && e.messages.some((m) => m.role === 'tool' && alnum(m.content).includes(key)));
}

/** What the doc says of one run. */
function measure(dir) {
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
  let ledger = 0;
  try {
    ledger = readFileSync(join(dir, 'ledger.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    // no booking executed
  }
  // NOT_TESTED: the start of its reason; FAIL: the report's violations (a duplicate, an early re-send under F2, …).
  const violations = [...new Set((run.report?.report?.violations ?? []).map((v) => v.type))].join(', ');
  const reason =
    run.verdict === 'NOT_TESTED' ? run.verdictReason.split(/[;:]/)[0] : run.verdict === 'FAIL' ? violations || null : null;
  return {
    file: join(dir, 'run.json'),
    verdict: run.verdict,
    reason,
    sources: (run.facts?.duplicateSources ?? []).join(' + ') || 'none',
    ledger,
    errorReached: errorReachedModel(run.transcript ?? []),
    cancelled: (run.transcript ?? []).some((e) => e.kind === 'tool-result' && e.told === 'cancelled'),
    sessions: run.mcpSessions ?? 0,
    closed: run.mcpSessionsClosedByAgent ?? 0,
  };
}

async function runAll(rows, out) {
  const trials = trialsOf(rows);
  const results = new Map();
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < trials.length) {
      const index = next++;
      const trial = trials[index];
      const dir = join(out, String(index));
      await runTrial(trial, dir);
      for (const row of trial.rows) {
        const cellRuns = readdirSync(join(dir, 'runs'))
          .filter((name) => name.startsWith(SCENARIOS.includes(row.cell) ? `${row.cell}-` : ''))
          .sort();
        results.set(
          row.id,
          cellRuns.map((name) => measure(join(dir, 'runs', name))),
        );
      }
      done++;
      process.stderr.write(`frameworks: ${done}/${trials.length} trials (${trial.rows.map((r) => r.id).join(', ')})\n`);
    }
  };
  await Promise.all(Array.from({ length: JOBS }, worker));
  return results;
}

// ---- the doc ---------------------------------------------------------------------------------------------------

const count = (values) => {
  const counts = new Map();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, n]) => `${n}× ${value}`).join(', ');
};
const yesNo = (values, none) => {
  const known = values.filter((v) => v !== null);
  if (known.length === 0) return none;
  const yes = known.filter(Boolean).length;
  return yes === known.length ? 'yes' : yes === 0 ? 'no' : `${yes}/${known.length}`;
};
const versionsOf = (framework) =>
  framework.packages.map((name) => `${name} ${pinned(name, framework.harnessPackages === true)}`).join(', ');

/** The run file a reader could doubt a finding by: a run with a duplicate, else FAIL or NOT_TESTED, else a cancel. */
function evidence(runs) {
  return (
    runs.find((r) => r.sources !== 'none') ?? runs.find((r) => r.verdict !== 'PASS') ?? runs.find((r) => r.cancelled) ?? null
  );
}

function rowLine(row, runs) {
  const shown = evidence(runs);
  const verdicts = count(runs.map((r) => (r.reason === null ? r.verdict : `${r.verdict} (${r.reason})`)));
  const closed = runs.map((r) => (r.sessions === 0 ? null : r.closed === r.sessions));
  const timeoutSetting = row.setting.flags.includes('--hold');
  return `| ${[
    row.framework.name,
    versionsOf(row.framework),
    row.setting.label,
    row.script,
    row.cell,
    verdicts,
    count(runs.map((r) => r.sources)),
    count(runs.map((r) => String(r.ledger))),
    yesNo(
      runs.map((r) => r.errorReached),
      '—',
    ),
    timeoutSetting
      ? yesNo(
          runs.map((r) => r.cancelled),
          '—',
        )
      : '—',
    count(runs.map((r) => String(r.sessions))),
    yesNo(closed, '—'),
    shown === null ? '' : `[run](frameworks/${row.id}.run.json)`,
    `\`${row.flags.join(' ')}\``,
  ].join(' | ')} |`;
}

const HEAD = [
  "| framework | pinned versions | setting | script | scenario / model fault | verdicts | duplicates by source (R-14) | bookings in the ledger | tool error reaches the model | client time-out sends `notifications/cancelled` | MCP sessions per run | agent ends its MCP session | run file | the row's flags |",
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
];

/** The summary block: per framework and setting, where duplicates came from and where the program gave up. */
function summary(rows, results) {
  const lines = [];
  for (const framework of FRAMEWORKS) {
    const parts = [];
    for (const setting of framework.settings) {
      const mine = rows.filter((r) => r.framework === framework && r.setting === setting);
      const dup = mine.filter((r) => results.get(r.id).some((run) => run.sources !== 'none'));
      const failed = mine.filter((r) => results.get(r.id).some((run) => run.verdict === 'NOT_TESTED'));
      const dupText =
        dup.length === 0
          ? 'no duplicate'
          : `duplicates in ${dup.map((r) => `${r.cell} ${r.script} (${[...new Set(results.get(r.id).map((x) => x.sources))].filter((s) => s !== 'none').join(', ')})`).join('; ')}`;
      const failedText =
        failed.length === 0
          ? ''
          : `; the program stopped (NOT_TESTED) in ${failed.map((r) => `${r.cell} ${r.script}`).join(', ')}`;
      parts.push(`${setting.label}: ${dupText}${failedText}`);
    }
    lines.push(`- **${framework.name}** (${versionsOf(framework)}): ${parts.join('. ')}.`);
  }
  return lines;
}

function doc(rows, results, { wallMs, cpuSeconds, load }) {
  const time = (ms) => `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
  const trials = trialsOf(rows).length;
  return [
    '# Agent frameworks under tool-side and model-side faults',
    '',
    '<!-- GENERATED by `npm run frameworks` (scripts/frameworks.mjs): do not edit by hand. -->',
    `Generated by \`npm run frameworks\` (\`node scripts/frameworks.mjs --runs ${RUNS}\`, after \`npm run build\` and`,
    '`npm ci --prefix examples/agents --ignore-scripts`); do not edit it by hand, run the command again.',
    '`e2e/frameworks-doc.e2e.test.ts` re-runs a slice of it and fails when its rows differ from this page.',
    '',
    `Every agent program of [examples/agents](../examples/agents/README.md) (pinned versions) × the scenarios F1–F7`,
    'and the model-side faults × its settings (the defaults first, then its retry variants), its model played',
    'offline by the stub scripts ([model-gateway.md](model-gateway.md)): `careful` books once with an idempotency',
    'key and, after an uncertain answer, checks instead of booking again, so any repeat in its rows is the',
    "runtime's; `naive` books again after a failure. The model faults (`--model-fault`, each alone, on the model",
    "request carrying the booking's result; `timeout:3000`: no answer, the connection dropped after 3 s) run with",
    'the careful script only: the naive one differs only after an uncertain tool answer. Every program speaks',
    'Streamable HTTP to the harness here (`--agent-transport http`), so whether it ends its MCP session (`DELETE`)',
    'is seen; over stdio a program that exits always ends it. Under F6 the write reaches the booking server 5 s',
    'after its time-out (or when the run ends, if sooner): a check right after the time-out finds nothing, and',
    "the *bookings* column is the ledger after the late write landed; F7's write executes before its 500.",
    '',
    `**${RUNS} run(s) per row, ${rows.length} rows, ${trials} trials, ${JOBS} trials at a time: ${time(wallMs)}** on`,
    `this two-core machine${load === null ? '' : `, shared with other work (load average ${load.toFixed(1)} while it ran)`}${cpuSeconds === null ? '' : `; the processes it started used ${Math.round(cpuSeconds)} s of CPU, about ${time((cpuSeconds / 2) * 1000)} on both cores of an idle machine`}.`,
    '',
    "Each row reproduces with the same command plus its flags (last column), from the repository's root:",
    '',
    '```bash',
    `node dist/cli/bin.js trial --agent-command node --agent-transport http --task "${TASK}" \\`,
    `  --honesty off --runs ${RUNS} --upstream-command node --upstream-arg dist/examples/booking-server/server.js \\`,
    "  --upstream-env-var 'BOOKING_LEDGER={run_dir}/ledger.jsonl' \\",
    `  ${rows[0].flags.join(' ')}`,
    '```',
    '',
    "Columns: *verdicts* per run (FAIL with the report's violations; NOT_TESTED with the start of its reason: a",
    "program that stops on a failed model request is not judged); *duplicates by source*: who sent each run's",
    'repeated write (`runtime`: no model answer',
    "asked for it; `model`; `user`: after a follow-up), the run file's `facts.duplicateSources` (R-14);",
    "*bookings*: what the booking server's own ledger holds after each run; *tool error reaches the model*: the",
    "first failed tool answer's text is in a later model request (— : no tool answer failed);",
    "*`notifications/cancelled`*: only in the rows where the client's own MCP time-out (1 s) is shorter than F1's",
    "held answer (3 s); *agent ends its MCP session*: it sent `DELETE` before it exited (the run file's",
    "`mcpSessionsClosedByAgent`). *run file*: a run that shows the row's finding (a duplicate, a FAIL, a",
    'NOT_TESTED, a cancel), checked in under [frameworks/](frameworks/) (about 10–20 KB each).',
    '',
    '<!-- frameworks-summary:start -->',
    ...summary(rows, results),
    '<!-- frameworks-summary:end -->',
    '',
    ...HEAD,
    ...rows.map((row) => rowLine(row, results.get(row.id))),
    '',
  ].join('\n');
}

// ---- main ------------------------------------------------------------------------------------------------------

/** CPU seconds (user + system) of this process's waited-for children and theirs (Linux), or null elsewhere. */
function childrenCpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // cutime and cstime: fields 16 and 17 of stat, 14 and 15 after the command's name; in clock ticks (100 Hz).
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}
const loads = [];
const sampler = setInterval(() => loads.push(loadavg()[0]), 15_000);

const started = Date.now();
const rows = allRows().filter((row) => only === undefined || new RegExp(only).test(row.id));
if (rows.length === 0) {
  console.error(`frameworks: no row matches ${only}`);
  process.exit(1);
}
const out = mkdtempSync(join(tmpdir(), 'frameworks-'));
try {
  const results = await runAll(rows, out);
  clearInterval(sampler);
  if (only !== undefined) {
    for (const row of rows) console.log(rowLine(row, results.get(row.id)));
  } else {
    const wallMs = Date.now() - started;
    rmSync(join(ROOT, RUN_FILES), { recursive: true, force: true });
    mkdirSync(join(ROOT, RUN_FILES), { recursive: true });
    for (const row of rows) {
      const shown = evidence(results.get(row.id));
      if (shown !== null) copyFileSync(shown.file, join(ROOT, RUN_FILES, `${row.id}.run.json`));
    }
    const load = loads.length === 0 ? null : loads.reduce((a, b) => a + b, 0) / loads.length;
    writeFileSync(join(ROOT, DOC), doc(rows, results, { wallMs, cpuSeconds: childrenCpuSeconds(), load }));
    console.error(`frameworks: ${DOC} written (${rows.length} rows, ${Math.round(wallMs / 1000)} s)`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
