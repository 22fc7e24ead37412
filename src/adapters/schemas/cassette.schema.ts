/**
 * One line of a recording (`cassette.jsonl`, `docs/replay.md`), written by the recording tap
 * (`src/adapters/cassette/recording-upstream-side.ts`) and read back by `--upstream-replay`
 * (`src/adapters/cassette/cassette-reader.ts`). The format's version is the header's `v`
 * (`CASSETTE_VERSION`), not a `schemaVersion`. Checked against the port's types at compile time.
 */
import { z } from 'zod';
import { CASSETTE_FORMAT, CASSETTE_VERSION, type CassetteHeader, type CassetteLine } from '../../ports/cassette.port.js';
import { count, sameShape, type Same } from './common.js';

export const cassetteHeaderSchema = z
  .object({
    cassette: z.literal(CASSETTE_FORMAT).describe('Names the format.'),
    v: z.literal(CASSETTE_VERSION).describe('The format version; a reader refuses any other.'),
    harnessVersion: z.string(),
    recorded: z.string().describe('What was recorded: `proxy`, or `trial run <id>`.'),
    upstream: z.object({
      serverName: z.string().nullable(),
      serverVersion: z.string().nullable(),
      tools: count,
      toolsHash: z.string().describe('sha256 of the tool list in canonical JSON (keys sorted), as `sha256:<hex>`.'),
    }),
    redacted: z.array(z.string()).describe('Fields whose values were replaced by "[REDACTED]" (--redact).'),
    modelFault: z
      .object({ fault: z.string(), on: z.string() })
      .optional()
      .describe('trial --model-fault: the model fault the run was recorded under (as the flags write it). Absent when none.'),
  })
  .meta({ title: 'Recording header', description: 'The first line of a cassette.jsonl (docs/replay.md).' });

const jsonRpc = z.object({ jsonrpc: z.literal('2.0') }).catchall(z.unknown());

const notKept = z
  .object({
    bytes: count.describe('The size of the line it would have been, in bytes.'),
    sha256: z.string().describe('sha256 of that line, as `sha256:<hex>`.'),
    preview: z.string().describe('Its first characters.'),
  })
  .describe(
    'The body was not kept: the recording had outgrown its size budget (docs/replay.md). A replay that reaches it is a miss.',
  );

const message = z.object({
  side: z.literal('upstream'),
  dir: z.enum(['send', 'receive']),
  message: jsonRpc.describe('The JSON-RPC message (a request, a notification, a result or an error), keys sorted.'),
  notKept: notKept.optional(),
});

const modelNotKept = z.object({
  side: z.literal('model'),
  dir: z.enum(['send', 'receive']),
  exchange: z.number().int().positive(),
  notKept,
});

const stopped = z.object({
  side: z.literal('recording'),
  stopped: z.string().describe('Why the recording stopped here: nothing after this line was recorded.'),
});

const detail = z.string();
const noAnswer = z.object({
  side: z.literal('upstream'),
  dir: z.literal('receive'),
  id: z.number().int().positive().describe('The id of the request that got no answer.'),
  noAnswer: z
    .discriminatedUnion('kind', [
      z.object({ kind: z.literal('timeout'), afterMs: z.number() }),
      z.object({ kind: z.literal('connection-lost'), detail }),
      z.object({ kind: z.literal('too-large'), detail }),
      z.object({ kind: z.literal('invalid-answer'), detail }),
      z.object({ kind: z.literal('unavailable'), detail }),
      z.object({ kind: z.literal('not-sent'), detail }),
      z.object({ kind: z.literal('replay-miss'), detail }),
    ])
    .describe('How the request ended without an answer.'),
});

const toolCall = z.object({ id: z.string(), name: z.string(), argumentsText: z.string() });
const chatMessage = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable(),
  toolCalls: z.array(toolCall).optional(),
  toolCallId: z.string().optional(),
});
const modelRequest = z.object({
  side: z.literal('model'),
  dir: z.literal('send'),
  exchange: z.number().int().positive().describe('1, 2, … in the run, in the order the requests were made.'),
  request: z
    .object({
      messages: z.array(chatMessage).readonly(),
      tools: z
        .array(z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }))
        .readonly(),
      temperature: z.number().optional(),
      seed: z.number().optional(),
    })
    .describe('The whole conversation the model was sent, and the tools it was offered.'),
});
const modelAnswer = z.object({
  side: z.literal('model'),
  dir: z.literal('receive'),
  exchange: z.number().int().positive(),
  answer: z
    .union([
      z.object({ content: z.string().nullable(), toolCalls: z.array(toolCall), finishReason: z.string().nullable() }),
      z.object({
        error: z.string(),
        modelFault: z
          .string()
          .optional()
          .describe('The harness injected this failure (--model-fault, as the flag writes it); absent for a real one.'),
      }),
    ])
    .describe("The model's answer, or why there was none."),
});

/** A line after the header. */
export const cassetteBodyLineSchema = z.union([message, noAnswer, modelRequest, modelAnswer, modelNotKept, stopped]);

export const cassetteLineSchema = z
  .union([cassetteHeaderSchema, message, noAnswer, modelRequest, modelAnswer, modelNotKept, stopped])
  .meta({ title: 'Recording line', description: 'One JSON line of a cassette.jsonl (docs/replay.md).' });

sameShape<Same<z.output<typeof cassetteHeaderSchema>, CassetteHeader>>();
sameShape<[CassetteLine] extends [z.output<typeof cassetteBodyLineSchema>] ? true : false>();
