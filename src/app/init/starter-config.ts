/**
 * The starter config file `init` writes (docs/config.md, "The starter"): a trial of the bundled booking
 * server with the example agent program, its model played by the stub model from a script written in the
 * file itself, so it runs as it is — no model, no key — and every part is commented for replacing.
 */

/** Where the starter's pieces are, as the file should name them (relative to the file, or absolute). */
export interface StarterPaths {
  /** The config's JSON Schema, for the yaml-language-server line; null when the install has none. */
  schema: string | null;
  bookingServer: string;
  exampleAgent: string;
}

/** The program's name as users type it, for the comments. */
export function starterConfig(paths: StarterPaths, program: string): string {
  const quoted = (path: string) => JSON.stringify(path);
  return `${paths.schema === null ? '' : `# yaml-language-server: $schema=${paths.schema}\n`}# A trial of ${program}: the bundled booking server (an MCP server that books hotel rooms) under
# test, the example agent program (the MCP SDK client and Chat Completions) as the agent, and its model
# played by the harness's stub model from the script below: no model, no key. It runs as it is:
#
#   ${program} trial --config harness.yaml
#
# then replace the parts with your own server, agent and model. Every key is one trial flag
# (trial --help), and a flag on the command line overrides its key: --runs 10 --out my-trial.
# Every key, the precedence and the settings hash: docs/config.md.

# The MCP server under test: a command (args, cwd, env), or url: https://… (headers, header_env).
upstream:
  command: node
  args:
    - ${quoted(paths.bookingServer)}
  env:
    # Each run's bookings, in its own run folder ({run_dir} is filled in for every run).
    BOOKING_LEDGER: '{run_dir}/ledger.jsonl'

# Your agent program, started once per run (transport: stdio or http; env: its variables).
# Without agent, model.name alone runs the harness's built-in agent loop.
agent:
  command: node
  args:
    - ${quoted(paths.exampleAgent)}

# The agent's model. stub: the harness plays it from this script (or a file: stub: my-script.yaml).
# Here a careful model: one booking with an idempotency key; after an uncertain answer it searches and
# never books again. For a real model instead of stub (the gateway forwards every request):
#   name: gpt-4.1-mini
#   base_url: https://api.openai.com/v1
#   api_key_env: OPENAI_API_KEY
model:
  stub:
    write:
      tool: create_booking
      arguments: { guest: Ann Lee, date: '2026-05-01', room: standard, nights: 2, idempotency_key: ann-lee-2026-05-01 }
    check:
      tool: search_bookings
      arguments: { guest: Ann Lee, date: '2026-05-01' }
    after_uncertain: check-then-stop
    after_follow_up: check-then-stop
    found_pattern: 'BK-\\d+'

# What the user asks (or tasks: a list, or task_file: tasks.yaml).
task: Book a standard room for Ann Lee on 2026-05-01.
# follow_ups: [Please try again.]

# The faults, --runs runs each: F1 the write executes but the agent only gets a time-out (ghost write);
# F2 a 429 with retry_after; F3 a truncated answer; F4 none (two writes pass, a baseline); F5 a 500,
# then success. No scenarios: a pass-through baseline.
scenarios: [F1]
# faults:
#   model: 500          # also a model-side fault, once per run
runs: 2
# seed: 1
# out: trials/starter   # default: .cuonztech/trials/<time>/
`;
}
