/**
 * The probes of `probe` as data (docs/probe.md): what each one sends to a write tool and when the server
 * keeps its idempotency promise. Pure: the application reads `steps` to drive a fresh upstream per
 * probe; the judge (`probe-judge.ts`) turns what it saw into a label. The faults of P5 and P6 are asked of
 * the fault registry by what they do (`faultServing`), never named here: a fault added in its own file serves
 * a probe that needs what it does.
 */
import { faultOf, faultServing, type ScenarioId } from '../faults/index.js';

export type ProbeId = 'P1' | 'P2' | 'P3' | 'P4' | 'P5' | 'P6' | 'P7' | 'P8' | 'P9';

/** How a call of a probe carries the key. */
export type KeyPlacement =
  /** the first call's key, in the argument named by the key field */
  | 'same'
  /** a key no other call of the probe uses, in the argument */
  | 'new'
  /** the first call's key in `_meta` under the key field's name, none in the arguments */
  | 'meta'
  /** no key at all */
  | 'none';

/** One call of a probe. */
export interface ProbeStep {
  key: KeyPlacement;
  /** Send the example with one argument changed (P2). */
  otherArguments?: boolean;
  /**
   * The harness's scenario for this call, from the registry: P5's executes and tells a time-out, P6's a 500
   * unexecuted, P9's tells a time-out and reaches the server only after the next call of the probe.
   */
  fault?: ScenarioId;
  /** Sent while the previous call is still in flight (P3, after `--gap`). */
  concurrent?: boolean;
}

/** Which promise a probe tests: it runs only on tools that make it. */
export type ProbeNeeds = 'key' | 'hint' | 'any';

export interface ProbeDefinition {
  id: ProbeId;
  needs: ProbeNeeds;
  /** What it sends, in words (the table's and docs/probe.md's). */
  sends: string;
  /** When the server keeps its promise, in words. */
  keepsWhen: string;
  steps: readonly ProbeStep[];
  /** Its label changes the tool's verdict; false: reported only (P4's fingerprint, P7's key location). */
  judged: boolean;
}

/** P5's first call: executed upstream, the agent hears a time-out (a ghost write). */
const GHOST_WRITE = faultServing({ executes: true, tells: 'timeout' });
/** P6's first call: never executed, the agent hears a 500. */
const SERVER_ERROR = faultServing({ executes: false, tells: 'server-error' });
/**
 * P9's first call: the agent hears a time-out at once and the write reaches the server late (a queue): here
 * after the retry has been answered and counted, so the server sees the retry first and the original second.
 */
const LATE_WRITE = faultServing({ executes: true, tells: 'timeout', late: true });

export const PROBES: readonly ProbeDefinition[] = [
  {
    id: 'P1',
    needs: 'key',
    sends: 'same key, same arguments, one after the other',
    keepsWhen: 'one effect; the second answer replays the first',
    steps: [{ key: 'same' }, { key: 'same' }],
    judged: true,
  },
  {
    id: 'P2',
    needs: 'key',
    sends: 'same key, other arguments',
    keepsWhen: 'refused (an error the agent can see), no new effect',
    steps: [{ key: 'same' }, { key: 'same', otherArguments: true }],
    judged: true,
  },
  {
    id: 'P3',
    needs: 'key',
    sends: 'same key, same arguments, the second while the first is still running',
    keepsWhen: 'one effect (a conflict error or a wait-and-replay)',
    steps: [{ key: 'same' }, { key: 'same', concurrent: true }],
    judged: true,
  },
  {
    id: 'P4',
    needs: 'key',
    sends: 'new key, same arguments',
    keepsWhen: 'a new effect (a fingerprint de-duplication is reported, not failed)',
    steps: [{ key: 'same' }, { key: 'new' }],
    judged: false,
  },
  {
    id: 'P5',
    needs: 'key',
    sends: `${GHOST_WRITE} ${faultOf(GHOST_WRITE).name}, then the same call with the same key`,
    keepsWhen: 'one effect',
    steps: [{ key: 'same', fault: GHOST_WRITE }, { key: 'same' }],
    judged: true,
  },
  {
    id: 'P6',
    needs: 'key',
    sends: `${SERVER_ERROR} (500, not executed), then the same call with the same key`,
    keepsWhen: 'one effect',
    steps: [{ key: 'same', fault: SERVER_ERROR }, { key: 'same' }],
    judged: true,
  },
  {
    id: 'P7',
    needs: 'any',
    sends: 'the key in _meta only, same arguments twice',
    keepsWhen: 'reported: where the key is read (an argument, _meta, or not at all)',
    steps: [{ key: 'meta' }, { key: 'meta' }],
    judged: false,
  },
  {
    id: 'P8',
    needs: 'hint',
    sends: 'no key at all, same arguments twice, on a tool annotated idempotentHint: true',
    keepsWhen: 'one effect (the hint holds)',
    steps: [{ key: 'none' }, { key: 'none' }],
    judged: true,
  },
  {
    id: 'P9',
    needs: 'key',
    sends: `${LATE_WRITE} ${faultOf(LATE_WRITE).name}: the retry with the same key goes first, the held-back write lands after it`,
    keepsWhen: 'one effect: the late write is replayed or refused',
    steps: [{ key: 'same', fault: LATE_WRITE }, { key: 'same' }],
    judged: true,
  },
];

/** What a tool promises, from its listing. */
export interface ToolPromise {
  /** Its input schema has a key field (`--key-fields`). */
  acceptsKey: boolean;
  /** Annotated `idempotentHint: true`. */
  hinted: boolean;
}

/** The probes that apply to a tool, in order; `skipped` says why the others do not. */
export function probesFor(promise: ToolPromise): { run: ProbeDefinition[]; skipped: Array<{ id: ProbeId; why: string }> } {
  const run: ProbeDefinition[] = [];
  const skipped: Array<{ id: ProbeId; why: string }> = [];
  for (const probe of PROBES) {
    if (probe.needs === 'key' && !promise.acceptsKey) skipped.push({ id: probe.id, why: 'the input schema has no key field' });
    else if (probe.needs === 'hint' && !promise.hinted) skipped.push({ id: probe.id, why: 'not annotated idempotentHint: true' });
    else run.push(probe);
  }
  return { run, skipped };
}
