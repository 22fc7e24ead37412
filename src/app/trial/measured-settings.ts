/**
 * Every setting of a trial that changes what its runs measure, as `setting → value` text: the agent
 * (model and its parameters, or the program's command line and the variables set for it with
 * `--agent-env-var`), the tasks and prompts, the honesty question, the patches, the runs per group, the
 * classification, the fault set-up (scenario parameters, aim, latency, hold), the model-side fault
 * (`--model-fault`, only when given) and the upstream's time-out.
 * `summary.json` records it in `provenance.settings`, its hash is `provenance.configurationHash`, and
 * `stats` refuses to pool trials whose settings differ, naming each setting and its two values
 * (docs/statistics.md, "Merging run folders").
 *
 * Not in it: where things run (the upstream's command line, the output folder, the machine's own
 * environment), which differs between the machines of one CI matrix, and the scenario set (compared on
 * its own). Texts that may be long or private (prompts, variable values) appear as a sha256 prefix.
 */
import { DEFAULT_AIM, faultSettingsOf, type ScenarioConfig } from '../../domain/faults/fault-plan.js';
import { faultOf } from '../../domain/faults/index.js';
import { describeAgent } from './agent-description.js';
import { modelFaultKindLabel, modelFaultOnLabel } from '../../domain/faults/model-fault.js';
import { modelReplayOf, scenarioLabel, type TrialPlan } from './trial-plan.js';

export type MeasuredSettings = Record<string, string>;

/** The names of the settings whose texts may come from a file (TrialPlan.settingFiles is keyed by them). */
export const settingFileNames = {
  systemPrompt: (taskId: string) => `task ${taskId}: system prompt`,
  task: (taskId: string) => `task ${taskId}: task`,
  followUps: (taskId: string) => `task ${taskId}: follow-ups`,
  stubModel: '--stub-model',
  patchTexts: 'patch texts',
} as const;

/** `sha256:` and the first 16 hex digits of the hash: enough to tell two texts apart in a message. */
const digest = (hash: (text: string) => string, text: string): string => `sha256:${hash(text).slice(0, 16)}`;
const list = (values: readonly string[] | undefined): string => (values === undefined ? '(default)' : JSON.stringify(values));

function faultSettings(scenarios: readonly ScenarioConfig[], into: MeasuredSettings): void {
  for (const scenario of scenarios) {
    const label = scenarioLabel(scenario);
    const aim = scenario.aim ?? DEFAULT_AIM;
    if (scenario.mode === 'scenario') {
      const { parameters } = faultSettingsOf(scenario);
      for (const parameter of faultOf(scenario.id).parameters)
        into[`${label} --${parameter.flag}`] = `${parameters[parameter.name]} ${parameter.unit}`;
    }
    if (scenario.mode === 'chaos') into[`${label} --error-rate`] = String(scenario.errorRate);
    if (scenario.mode === 'none') continue;
    into[`${label} --fault-tool`] = aim.tools === null ? '(every tool)' : JSON.stringify(aim.tools);
    into[`${label} --fault-on`] = String(aim.on);
    into[`${label} --latency`] =
      scenario.latency === undefined ? 'none' : `${scenario.latency.ms} ms ± ${scenario.latency.jitterMs} ms`;
    into[`${label} --hold`] = scenario.holdMs === undefined ? 'none' : `${scenario.holdMs} ms`;
  }
}

/** The settings of a plan; `patch` names the treatment arm's texts when it ran (their hashes are compared). */
export function measuredSettings(
  plan: TrialPlan,
  hash: (text: string) => string,
  patchTexts: readonly string[] | null,
): MeasuredSettings {
  const s: MeasuredSettings = {};
  const agent = plan.agent;
  if (agent.kind === 'model') {
    s['--model'] = agent.model;
    s['--base-url'] = describeAgent(agent).baseUrl;
    s['--temperature'] = agent.temperature === undefined ? "(the endpoint's)" : String(agent.temperature);
    s['--is-error'] = agent.isError;
    s['--model-retries'] = String(agent.retries);
    s['--honesty-question'] = plan.honestyQuestion === undefined ? 'off' : digest(hash, plan.honestyQuestion);
  } else {
    s['--agent-command'] = agent.command;
    s['--agent-arg'] = JSON.stringify(agent.args);
    s['--agent-transport'] = agent.transport;
    s['--agent-timeout'] = `${agent.timeoutMs} ms`;
    const names = Object.keys(agent.env).sort();
    s['--agent-env-var'] = names.length === 0 ? '(none)' : names.join(', ');
    for (const name of names) s[`--agent-env-var ${name}`] = digest(hash, agent.env[name]!);
    // With the model gateway the model's side is measured: the stub script, or (forward mode) the real
    // endpoint and model, so runs of two models are never pooled; and the honesty question.
    const gateway = agent.gateway;
    s[settingFileNames.stubModel] = gateway?.kind === 'stub' ? digest(hash, JSON.stringify(gateway.script)) : '(none)';
    const forward = describeAgent(agent).gateway;
    if (forward?.mode === 'forward') {
      s['--model'] = forward.model;
      s['--base-url'] = forward.baseUrl;
    }
    if (gateway !== undefined)
      s['--honesty-question'] = plan.honestyQuestion === undefined ? 'off' : digest(hash, plan.honestyQuestion);
  }
  s['--seed'] = agent.seed === undefined ? '(none)' : String(agent.seed);
  s['--runs'] = String(plan.runs);
  s['tasks'] = plan.tasks.map((task) => task.id).join(', ');
  for (const task of plan.tasks) {
    s[settingFileNames.systemPrompt(task.id)] = task.systemPrompt === undefined ? '(none)' : digest(hash, task.systemPrompt);
    s[settingFileNames.task(task.id)] = digest(hash, task.task);
    s[settingFileNames.followUps(task.id)] =
      task.followUps.length === 0 ? '(none)' : digest(hash, JSON.stringify(task.followUps));
    s[`task ${task.id}: --max-steps`] = String(task.maxSteps);
  }
  s['--patch'] = plan.patch === undefined ? '(none)' : plan.patch.kind === 'auto' ? 'auto' : plan.patch.label;
  if (patchTexts !== null) s[settingFileNames.patchTexts] = digest(hash, JSON.stringify(patchTexts));
  s['--key-fields'] = JSON.stringify(plan.keyFields);
  s['--write-tools'] = list(plan.classification.writeTools);
  s['--read-tools'] = list(plan.classification.readTools);
  s['--upstream-timeout'] = `${plan.callTimeoutMs} ms`;
  s['--idempotent-hint'] = plan.idempotentHint ?? 'honour';
  faultSettings(plan.scenarios, s);
  // A replay repeats a recorded sample: never pooled with live runs (only when given, as below).
  if (plan.replayed === true) s['--upstream-replay'] = 'replayed (repeats a recorded sample, not a new one)';
  if (modelReplayOf(plan) !== undefined) s['--model-replay'] = 'replayed (repeats a recorded sample, not a new one)';
  // Only when given, so trials from before the flag still pool with trials without it.
  if (plan.modelFault !== undefined) {
    s['--model-fault'] = modelFaultKindLabel(plan.modelFault.fault);
    s['--model-fault-on'] = modelFaultOnLabel(plan.modelFault.on);
  }
  return s;
}

/**
 * `provenance.settingFiles`: for each recorded setting whose text was read from a file, that file (as given;
 * the stub script's from the plan's gateway). Beside the settings and their hash, never in either.
 */
export function settingFilesOf(plan: TrialPlan, settings: MeasuredSettings): Record<string, string> {
  const files: Record<string, string> = { ...plan.settingFiles };
  const gateway = plan.agent.kind === 'command' ? plan.agent.gateway : undefined;
  if (gateway?.kind === 'stub') files[settingFileNames.stubModel] = gateway.file;
  return Object.fromEntries(
    Object.entries(files)
      .filter(([name]) => Object.hasOwn(settings, name))
      .sort(),
  );
}
