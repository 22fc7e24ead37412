/**
 * `--log-level info`: one line per call for the operator, when the agent gets its answer —
 * `#3 create_booking write — F1 ghost write: executed upstream, agent told timeout`. A call-event
 * observer like the journal; the line goes out through the notice writer (escaped for the terminal).
 */
import { faultOf, isFaultKind } from '../../domain/faults/index.js';
import type { CallEvent, CallEventSink } from '../../ports/call-events.port.js';

const UPSTREAM_WORDS = {
  executed: 'executed upstream',
  rejected: 'rejected by the upstream (isError)',
  unknown: 'unknown whether executed upstream',
  unavailable: 'upstream unavailable, not executed',
} as const;

const TOLD_WORDS = {
  answer: "agent got the upstream's answer",
  error: 'agent told error',
  timeout: 'agent told timeout',
  cancelled: 'the agent cancelled the call (told nothing)',
} as const;

/** The line of one delivered call (`prefix`: e.g. the session, with `--listen`). */
export function callLine(event: CallEvent, prefix = ''): string {
  const fault =
    event.fault === null ? '' : `${isFaultKind(event.fault) ? `${event.fault} ${faultOf(event.fault).name}` : event.fault}: `;
  const upstream = event.upstream === null || event.upstream === undefined ? 'not sent upstream' : UPSTREAM_WORDS[event.upstream];
  const told = event.told === undefined ? '' : `, ${TOLD_WORDS[event.told]}`;
  return `${prefix}#${event.attempt} ${event.tool} ${event.callClass} — ${fault}${upstream}${told}`;
}

/** Writes {@link callLine} for every delivered call. */
export class CallLines implements CallEventSink {
  constructor(
    private readonly write: (line: string) => void,
    private readonly prefix = '',
  ) {}

  callEvent(event: CallEvent): void {
    if (event.step === 'delivered') this.write(callLine(event, this.prefix));
  }
}
