/**
 * Tool classification: every tool the upstream lists is judged read, write or
 * unclassified once at start-up, by explicit flags, then MCP annotations, then name patterns. Only
 * write tools trigger scenarios and only read tools count as checks; unclassified tools are forwarded
 * but not judged. A name the upstream did not list is always unclassified.
 */

import { globMatch } from '../text/glob.js';
import { escapeTerminalText } from '../text/terminal-text.js';
import { isPlainObject, ownValue } from '../json.js';
import { schemaKeyFields, type KeyFieldMatcher } from './key-fields.js';

/** The class of a tool. */
export type ToolClass = 'read' | 'write' | 'unclassified';

/**
 * What `idempotentHint: true` on a write tool means to the judge: `honour` — an identical
 * re-send is no duplicate; `ignore` — the tool is judged like any other write (a hint not trusted).
 */
export type IdempotentHintPolicy = 'honour' | 'ignore';
export const IDEMPOTENT_HINT_POLICIES: readonly IdempotentHintPolicy[] = ['honour', 'ignore'];

/** The user's classification flags. */
export interface ClassificationRules {
  /** `--write-tools` globs; when given (even empty) they REPLACE {@link DEFAULT_WRITE_PATTERNS}. */
  writeTools?: readonly string[];
  /** `--read-tools` globs; they are added to {@link DEFAULT_READ_PREFIXES}. */
  readTools?: readonly string[];
}

/** What the upstream's tool list tells about one tool. */
export interface ToolFacts {
  /** The tool's name, as listed. */
  name: string;
  /** The tool's MCP annotations, untrusted. */
  annotations?: unknown;
  /** The tool's input JSON schema, untrusted. */
  inputSchema?: unknown;
  /** The tool's description, untrusted (read only to tell a SQL `query` argument from a search string). */
  description?: unknown;
}

/** The verdict on one listed tool, shown at start-up. */
export interface ToolClassification {
  /** The tool's name. */
  name: string;
  /** Its class. */
  class: ToolClass;
  /** Why, e.g. `default write pattern` or `annotation readOnlyHint=true`. */
  reason: string;
  /** The key fields detected among the top-level properties of its input schema. */
  keyFields: string[];
  /**
   * Set when the name's read prefix was overruled because the tool runs statements (a bare `query`, or
   * a SQL argument): it is unclassified, and the start-up warning names `--write-tools` for it.
   */
  runsStatements?: true;
}

/** The default write globs, in the order of the specification. */
export const DEFAULT_WRITE_PATTERNS: readonly string[] = [
  'write*',
  'create_*',
  'send_*',
  'submit_*',
  'post_*',
  'update_*',
  'insert_*',
  'book_*',
  'pay_*',
  'charge_*',
  'cancel_*',
  'delete_*',
  'confirm_*',
  'place_*',
  'add_*',
  'register_*',
  'schedule_*',
  'transfer_*',
  'refund_*',
  'reserve_*',
  'issue_*',
  'remove_*',
  'withdraw_*',
  'deposit_*',
  'purchase_*',
  'approve_*',
];

/**
 * The default read prefixes. The specification names none, so this is the project's choice: a tool is
 * read when the first word of its name is one of these (`get_booking`, `getBooking`, `get-booking`; not
 * `getaway`, not `budget_get`). Known false positive, documented in the product description:
 * `check_in_guest` is a write judged read.
 */
export const DEFAULT_READ_PREFIXES: readonly string[] = [
  'get',
  'list',
  'read',
  'search',
  'find',
  'query',
  'fetch',
  'lookup',
  'check',
  'describe',
  'show',
  'view',
  'count',
  'open',
  'retrieve',
];

const READ_PREFIXES: ReadonlySet<string> = new Set(DEFAULT_READ_PREFIXES);

const isUpper = (ch: string | undefined): boolean => ch !== undefined && ch >= 'A' && ch <= 'Z';
const isLowerOrDigit = (ch: string | undefined): boolean =>
  ch !== undefined && ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'));

/**
 * The snake_case lower form of a name: `createAppointment` → `create_appointment`, `CreateBooking` →
 * `create_booking`, `create-booking` → `create_booking`, `HTTPRequest` → `http_request`.
 * A word starts at an upper-case letter after a lower-case letter or digit, or at the last upper-case
 * letter of a run followed by a lower-case one; `-` becomes `_`. Only ASCII letters start words.
 */
export function snakeForm(name: string): string {
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const ch = name[i]!;
    const prev = name[i - 1];
    const startsWord = isUpper(ch) && (isLowerOrDigit(prev) || (isUpper(prev) && isLowerOrDigit(name[i + 1])));
    if (startsWord) out += '_';
    out += ch === '-' ? '_' : ch;
  }
  return out.toLowerCase();
}

type Verdict = Pick<ToolClassification, 'class' | 'reason' | 'runsStatements'>;

/**
 * Input names that hold a statement to run, by their snake form: `sql`, `sql_*` (`sql_query`,
 * `sqlStatement`), `*_sql` (`raw_sql`). A `query`, `statement` or `command` argument counts only when
 * its own description or the tool's mentions SQL: `search_nodes(query)` takes a search string, not SQL.
 */
const STATEMENT_WORDS: ReadonlySet<string> = new Set(['query', 'statement', 'statements', 'command', 'stmt']);
const mentionsSql = (text: unknown): boolean => typeof text === 'string' && /\bsql\b/i.test(text);

/** The name of the first input that takes SQL, or undefined; the schema is untrusted. */
function sqlInput(tool: ToolFacts): string | undefined {
  if (!isPlainObject(tool.inputSchema)) return undefined;
  const properties = ownValue(tool.inputSchema, 'properties');
  if (!isPlainObject(properties)) return undefined;
  for (const name of Object.keys(properties)) {
    const snake = snakeForm(name);
    if (snake === 'sql' || snake.startsWith('sql_') || snake.endsWith('_sql')) return name;
    if (!STATEMENT_WORDS.has(snake)) continue;
    const property = ownValue(properties, name);
    const described = isPlainObject(property) ? ownValue(property, 'description') : undefined;
    if (mentionsSql(described) || mentionsSql(tool.description)) return name;
  }
  return undefined;
}

/**
 * Why a tool whose name has a read prefix may write all the same (issue 42): a bare `query` (mcp-sqlite's
 * runs any SQL, `INSERT` included) or a tool that takes SQL (`read_query(query: "SQL …")`). Such a tool
 * is left unclassified rather than judged read, so its writes are never taken for checks; the user names
 * it with `--write-tools` (or `--read-tools` when the server refuses anything but `SELECT`). Annotations
 * and flags come first, so a server's `readOnlyHint: true` is still trusted.
 */
function runsStatements(tool: ToolFacts, snake: string): string | undefined {
  if (snake === 'query') return 'read prefix overruled: a bare "query" can run any statement';
  const input = sqlInput(tool);
  if (input !== undefined) return `read prefix overruled: input ${JSON.stringify(input)} takes SQL, which can write`;
  return undefined;
}

function matchingGlob(patterns: readonly string[], name: string): string | undefined {
  return patterns.find((pattern) => globMatch(pattern, name));
}

function byAnnotations(annotations: unknown): Verdict | undefined {
  if (!isPlainObject(annotations)) return undefined;
  const readOnly = ownValue(annotations, 'readOnlyHint');
  if (readOnly === true) return { class: 'read', reason: 'annotation readOnlyHint=true' };
  if (readOnly === false) return { class: 'write', reason: 'annotation readOnlyHint=false' };
  if (ownValue(annotations, 'destructiveHint') === true) {
    return { class: 'write', reason: 'annotation destructiveHint=true' };
  }
  return undefined;
}

function hintsIdempotent(annotations: unknown): boolean {
  return isPlainObject(annotations) && ownValue(annotations, 'idempotentHint') === true;
}

/** Classifies the upstream's tools and answers the class of a tool by name. */
export class ToolClassifier {
  private readonly rules: ClassificationRules;
  private readonly keyFields: KeyFieldMatcher;
  private classes = new Map<string, ToolClass>();
  private hinted: string[] = [];
  private hintedSet: ReadonlySet<string> = new Set();

  /**
   * @param rules the `--write-tools` / `--read-tools` flags
   * @param keyFields the key-field matcher, used to list each tool's detected key fields
   */
  constructor(
    rules: ClassificationRules,
    keyFields: KeyFieldMatcher,
    /** `--idempotent-hint`. */
    readonly idempotentHint: IdempotentHintPolicy = 'honour',
  ) {
    this.rules = rules;
    this.keyFields = keyFields;
  }

  /** Classifies the upstream's listed tools once (start-up); replaces any earlier list. */
  classifyListed(tools: readonly ToolFacts[]): ToolClassification[] {
    const result = tools.map((tool) => ({
      name: tool.name,
      ...this.judge(tool),
      keyFields: schemaKeyFields(tool.inputSchema, this.keyFields),
    }));
    this.classes = new Map(result.map((entry) => [entry.name, entry.class]));
    this.hinted = tools
      .filter((tool) => this.classes.get(tool.name) === 'write' && hintsIdempotent(tool.annotations))
      .map((tool) => tool.name);
    this.hintedSet = new Set(this.hinted);
    return result;
  }

  /** The listed write tools annotated `idempotentHint: true`, whether honoured or not. */
  get idempotentHinted(): readonly string[] {
    return this.hinted;
  }

  /** Whether an identical re-send of this tool is judged as no duplicate: hinted and honoured. */
  isIdempotent(name: string): boolean {
    return this.idempotentHint === 'honour' && this.classes.get(name) === 'write' && this.hintedSet.has(name);
  }

  /** O(1): the class of a tool by name; a name the upstream did not list is always 'unclassified'. */
  classOf(name: string): ToolClass {
    return this.classes.get(name) ?? 'unclassified';
  }

  private judge(tool: ToolFacts): Verdict {
    return (
      this.byFlags(tool.name) ??
      byAnnotations(tool.annotations) ??
      this.byName(tool) ?? { class: 'unclassified', reason: 'no annotation, no pattern match' }
    );
  }

  /** User globs match the literal name only, case-sensitively. */
  private byFlags(name: string): Verdict | undefined {
    // Checked before --read-tools: when both match, write is the safe side (a write judged read would
    // hide duplicates; a read judged write only makes a scenario trigger on it).
    const write = matchingGlob(this.rules.writeTools ?? [], name);
    if (write !== undefined) return { class: 'write', reason: `--write-tools ${write}` };
    const read = matchingGlob(this.rules.readTools ?? [], name);
    if (read !== undefined) return { class: 'read', reason: `--read-tools ${read}` };
    return undefined;
  }

  /** Default patterns match the literal name or its snake form (camelCase, PascalCase, kebab-case). */
  private byName(tool: ToolFacts): Verdict | undefined {
    const name = tool.name;
    const snake = snakeForm(name);
    if (this.rules.writeTools === undefined) {
      const write = DEFAULT_WRITE_PATTERNS.some((p) => globMatch(p, name) || globMatch(p, snake));
      if (write) return { class: 'write', reason: 'default write pattern' };
    }
    const firstWord = snake.split('_', 1)[0] ?? '';
    if (!READ_PREFIXES.has(firstWord)) return undefined;
    const overruled = runsStatements(tool, snake);
    if (overruled !== undefined) return { class: 'unclassified', reason: overruled, runsStatements: true };
    return { class: 'read', reason: 'read prefix' };
  }
}

/** A tool name for a stderr line: controls, bidi and invisible characters escaped (see terminal-text.ts). */
const printable = escapeTerminalText;

/**
 * Whether a notice line is one of {@link formatClassificationLines}' (the same for every run of a trial,
 * so shown once): the header, a tool's line, the unclassified WARNING lines, the key fields.
 */
export function isClassificationLine(line: string): boolean {
  return /^(Upstream tools \(|Key fields detected:|WARNING: tool "|WARNING: \d+ tools (could not be classified|run statements)| {2}(read|write|unclassified) )/.test(
    line,
  );
}

/**
 * The WARNING lines for unclassified tools: one line naming them all (issues 41 and 42: a server of 14
 * unannotated tools gave 14 identical pieces of advice), in the description's form for a single tool;
 * the tools whose read prefix was overruled because they run statements get their own line, which names
 * `--write-tools`.
 */
function unclassifiedWarnings(list: readonly ToolClassification[]): string[] {
  const unclassified = list.filter((tool) => tool.class === 'unclassified');
  const plain = unclassified.filter((tool) => tool.runsStatements !== true).map((tool) => printable(tool.name));
  const statements = unclassified.filter((tool) => tool.runsStatements === true).map((tool) => printable(tool.name));
  const lines: string[] = [];
  if (plain.length === 1)
    lines.push(
      `WARNING: tool "${plain[0]}" could not be classified as read or write. ` +
        'It is forwarded but triggers no scenario and is not judged. ' +
        'Use --write-tools or --read-tools to classify it.',
    );
  else if (plain.length > 1)
    lines.push(
      `WARNING: ${plain.length} tools could not be classified as read or write: ${plain.join(', ')}. ` +
        'They are forwarded but trigger no scenario and are not judged. ' +
        'Use --write-tools or --read-tools to classify them.',
    );
  if (statements.length === 1)
    lines.push(
      `WARNING: tool "${statements[0]}" runs statements (SQL can write as well as read), so its read prefix is not trusted: ` +
        'it is forwarded but triggers no scenario and is not judged. ' +
        'Name it with --write-tools to test its writes (--read-tools if the server runs only SELECT).',
    );
  else if (statements.length > 1)
    lines.push(
      `WARNING: ${statements.length} tools run statements (SQL can write as well as read), so their read prefix is not trusted: ${statements.join(', ')}. ` +
        'They are forwarded but trigger no scenario and are not judged. ' +
        'Name those that can write with --write-tools to test their writes (--read-tools for those the server limits to SELECT).',
    );
  return lines;
}

/**
 * The start-up lines of, without the `[cuonztech-agent-harness] ` prefix: the tool count, one line
 * per tool with class and reason, one WARNING naming the unclassified tools (and one for the tools that
 * run statements), then the tools with detected key fields.
 */
export function formatClassificationLines(
  list: readonly ToolClassification[],
  idempotent: { names: readonly string[]; policy: IdempotentHintPolicy; broken?: readonly string[] } = {
    names: [],
    policy: 'honour',
  },
): string[] {
  const lines = [`Upstream tools (${list.length}):`];
  for (const tool of list) {
    lines.push(`  ${tool.class.padEnd(12)} ${printable(tool.name)}  (${tool.reason})`);
  }
  lines.push(...unclassifiedWarnings(list));
  const detected = list
    .filter((tool) => tool.keyFields.length > 0)
    .map((tool) => `${printable(tool.name)} (${tool.keyFields.map(printable).join(', ')})`);
  lines.push(`Key fields detected: ${detected.length > 0 ? detected.join(', ') : 'none'}`);
  if (idempotent.names.length > 0) {
    const names = idempotent.names.map(printable).join(', ');
    lines.push(
      idempotent.policy === 'honour'
        ? `Idempotent write tools (idempotentHint: an identical re-send is not a duplicate; --idempotent-hint ignore judges them like any write): ${names}`
        : `idempotentHint ignored (--idempotent-hint ignore), judged like any write: ${names}`,
    );
  }
  // `--probe-results`: hints a probe run found broken (P8 hint_broken), named where the hints are listed.
  const broken = idempotent.broken ?? [];
  const listed = new Set(list.map((tool) => tool.name));
  const brokenHere = broken.filter((name) => listed.has(name));
  if (brokenHere.length > 0)
    lines.push(
      `WARNING: probe found the idempotentHint of ${brokenHere.map(printable).join(', ')} broken (P8 hint_broken: an identical re-send made a second effect)` +
        (idempotent.policy === 'honour'
          ? '; it is honoured here, so such a re-send is not judged a duplicate: give --idempotent-hint ignore to judge it like any write'
          : '; --idempotent-hint ignore judges it like any write'),
    );
  const elsewhere = broken.filter((name) => !listed.has(name));
  if (elsewhere.length > 0)
    lines.push(`WARNING: --probe-results names tools this upstream does not list: ${elsewhere.map(printable).join(', ')}`);
  return lines;
}
