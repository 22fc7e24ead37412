/**
 * The `probe` flags: its own (which tools, their example arguments, the count tool, P3's hold, the JSON
 * output, the reset command) plus the upstream, classification and key-field flags of `proxy`, parsed by
 * `parseProxyFlags` itself so both commands accept exactly the same values. One clear line for anything
 * wrong, before the upstream starts.
 */
import { errorMessage } from '../domain/error-message.js';
import { isPlainObject } from '../domain/json.js';
import { readRegularFile } from '../adapters/files/report-files/regular-file.js';
import { resolve } from 'node:path';
import { commaList, jsonObject, repeated, single, toolAndJson, type FlagValues } from './argv.js';
import { numberFlag } from './flag-spec.js';
import { UsageError } from './errors.js';
import { LIVE_UPSTREAM_FLAGS, parseProxyFlags, type ProxyFlags } from './proxy-flags.js';
import { parseOtelFlags, type OtelSettings } from './otel-flags.js';
import { parseEffectsFlags } from './effects-flags.js';
import type { EffectsViewSettings } from '../domain/effects/effects-settings.js';

/** probe's own flags (the proxy's upstream flags come on top); their help lines are the spec's, `flag-spec.ts`. */
export const PROBE_FLAGS: readonly string[] = [
  'tools',
  'example',
  'example-file',
  'effects-tool',
  'count-with',
  'effects-command',
  'effects-arg',
  'effects-path',
  'effect-key',
  'expect-effect',
  'gap',
  'json',
  'markdown',
  'junit',
  'reset-command',
];

/** The proxy flags probe takes: how to reach the upstream, how its tools are classified, the key fields. */
export const PROBE_PROXY_FLAGS: readonly string[] = [
  ...LIVE_UPSTREAM_FLAGS,
  'write-tools',
  'read-tools',
  'key-fields',
  'log-level',
  'upstream-timeout',
];

export interface ProbeFlags {
  proxy: ProxyFlags;
  tools: string[] | null;
  examples: Map<string, Record<string, unknown>>;
  countWith: { tool: string; arguments: Record<string, unknown>; flag: 'effects-tool' | 'count-with' } | null;
  /**
   * the whole effects view (a tool or a command, a path, the effect key, the expected effects), when
   * any flag beyond the count tool's is given; then `countWith` is null. Null: count only, or no view.
   */
  effects: EffectsViewSettings | null;
  gapMs: number;
  json: string | undefined;
  markdown: string | undefined;
  junit: string | undefined;
  resetCommand: string | undefined;
  /** `--otel` (docs/traces.md); null without it. */
  otel: OtelSettings | null;
}

/** Validates every flag; reads the example file. */
export async function parseProbeFlags(
  values: FlagValues,
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<ProbeFlags> {
  const proxyValues: Record<string, readonly string[]> = {};
  for (const flag of PROBE_PROXY_FLAGS) if (Object.hasOwn(values, flag)) proxyValues[flag] = values[flag]!;
  const proxy = parseProxyFlags(proxyValues);
  const toolsFlag = single(values, 'tools');
  const examples = new Map<string, Record<string, unknown>>();
  const file = single(values, 'example-file');
  if (file !== undefined) {
    let text: string;
    try {
      text = await readRegularFile(resolve(cwd, file));
    } catch (error) {
      throw new UsageError(`--example-file ${file}: ${errorMessage(error)}`);
    }
    const all = jsonObject(text, `--example-file ${file}`);
    for (const [tool, args] of Object.entries(all)) {
      if (!isPlainObject(args)) throw new UsageError(`--example-file ${file}: the example of ${tool} must be a JSON object`);
      examples.set(tool, args);
    }
  }
  for (const value of repeated(values, 'example')) {
    const [tool, args] = toolAndJson(value, 'example', true);
    if (examples.has(tool) && file === undefined) throw new UsageError(`--example ${tool} was given twice`);
    examples.set(tool, args!);
  }
  // R-15: --effects-tool is the effects view's name for the count tool; --count-with stays its alias.
  const viewTool = single(values, 'effects-tool');
  const alias = single(values, 'count-with');
  if (viewTool !== undefined && alias !== undefined)
    throw new UsageError('--effects-tool and --count-with name the same thing (--count-with is its alias): give one');
  const countFlag = viewTool !== undefined ? 'effects-tool' : 'count-with';
  const count = viewTool ?? alias;
  let countWith: ProbeFlags['countWith'] = null;
  if (count !== undefined) {
    const [tool, args] = toolAndJson(count, countFlag, false);
    countWith = { tool, arguments: args ?? {}, flag: countFlag };
  }
  // with a command, a path, a key or an expectation the view is the effects view proxy and trial
  // take (its key required, one clear line without it); the count tool alone keeps counting items.
  const viewFlags = ['effects-command', 'effects-arg', 'effects-path', 'effect-key', 'expect-effect'];
  let effects: EffectsViewSettings | null = null;
  if (viewFlags.some((flag) => Object.hasOwn(values, flag))) {
    effects = parseEffectsFlags(count === undefined ? values : { ...values, 'effects-tool': [count] });
    countWith = null;
  }
  // --gap was called --hold until 0.7 (issue 37 §3: in proxy and trial --hold is F1's held answer); the older
  // name is accepted for a release, not shown in --help; both given: one line.
  if (Object.hasOwn(values, 'gap') && Object.hasOwn(values, 'hold'))
    throw new UsageError('give --gap or its older name --hold, not both');
  const gapFlag = Object.hasOwn(values, 'hold') ? 'hold' : 'gap';
  const gap = single(values, gapFlag);
  const outputs = { json: single(values, 'json'), markdown: single(values, 'markdown'), junit: single(values, 'junit') };
  const given = Object.entries(outputs).filter(([, file]) => file !== undefined);
  for (const [flag, file] of given)
    for (const [other, otherFile] of given)
      if (flag < other && resolve(cwd, file!) === resolve(cwd, otherFile!))
        throw new UsageError(`--${flag} and --${other} must name different files`);
  return {
    proxy,
    tools: toolsFlag === undefined ? null : commaList(toolsFlag, 'tools'),
    examples,
    countWith,
    effects,
    gapMs: numberFlag(gap, 'gap', { spelled: gapFlag }),
    ...outputs,
    resetCommand: single(values, 'reset-command'),
    otel: parseOtelFlags(values, env),
  };
}
