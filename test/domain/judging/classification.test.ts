import { describe, expect, it } from 'vitest';
import {
  DEFAULT_READ_PREFIXES,
  DEFAULT_WRITE_PATTERNS,
  ToolClassifier,
  formatClassificationLines,
  isClassificationLine,
  snakeForm,
  type ClassificationRules,
  type ToolFacts,
} from '../../../src/domain/judging/classification.js';
import { DEFAULT_KEY_FIELDS, KeyFieldMatcher } from '../../../src/domain/judging/key-fields.js';

const keyFields = new KeyFieldMatcher(DEFAULT_KEY_FIELDS);

function classify(tools: readonly ToolFacts[], rules: ClassificationRules = {}) {
  const classifier = new ToolClassifier(rules, keyFields);
  return { classifier, list: classifier.classifyListed(tools) };
}

function one(tool: ToolFacts | string, rules: ClassificationRules = {}) {
  const facts = typeof tool === 'string' ? { name: tool } : tool;
  const [entry] = classify([facts], rules).list;
  return { class: entry?.class, reason: entry?.reason };
}

describe('R-8.2 default patterns', () => {
  it('R-8.2: the default write list is exactly the specification list, in order', () => {
    expect(DEFAULT_WRITE_PATTERNS.join(' ')).toBe(
      'write* create_* send_* submit_* post_* update_* insert_* book_* pay_* charge_* cancel_* delete_* ' +
        'confirm_* place_* add_* register_* schedule_* transfer_* refund_* reserve_* issue_* remove_* ' +
        'withdraw_* deposit_* purchase_* approve_*',
    );
    expect(DEFAULT_READ_PREFIXES).toContain('get');
  });

  it.each([
    ['createAppointment', 'create_appointment'],
    ['CreateBooking', 'create_booking'],
    ['create-booking', 'create_booking'],
    ['HTTPRequest', 'http_request'],
    ['getHTTPStatus', 'get_http_status'],
    ['get_booking', 'get_booking'],
    ['getV2Booking', 'get_v2_booking'],
  ])('R-8.2: the snake form of %s is %s', (name, snake) => {
    expect(snakeForm(name)).toBe(snake);
  });

  it.each([
    ['create_booking', 'write', 'default write pattern'],
    ['update_status_view', 'write', 'default write pattern'],
    ['createAppointment', 'write', 'default write pattern'],
    ['CreateBooking', 'write', 'default write pattern'],
    ['create-booking', 'write', 'default write pattern'],
    ['writeFile', 'write', 'default write pattern'],
    ['write', 'write', 'default write pattern'],
    ['check_in_guest', 'read', 'read prefix'],
    ['get_booking', 'read', 'read prefix'],
    ['getBooking', 'read', 'read prefix'],
    ['get-booking', 'read', 'read prefix'],
    ['get', 'read', 'read prefix'],
    ['getaway', 'unclassified', 'no annotation, no pattern match'],
    ['budget_get', 'unclassified', 'no annotation, no pattern match'],
    ['sync_ledger', 'unclassified', 'no annotation, no pattern match'],
    ['address_lookup', 'unclassified', 'no annotation, no pattern match'],
  ])('R-8.2: %s is %s (%s)', (name, cls, reason) => {
    expect(one(name)).toEqual({ class: cls, reason });
  });

  it('R-8.2: the write list is tried before the read prefixes', () => {
    expect(one('get_or_create_x')).toEqual({ class: 'read', reason: 'read prefix' });
    expect(one('delete_and_list')).toEqual({ class: 'write', reason: 'default write pattern' });
  });

  it('R-8.2: server-everything kebab-case names without annotations match the read prefixes', () => {
    expect(one('get-tiny-image')).toEqual({ class: 'read', reason: 'read prefix' });
    expect(one('toggle-simulated-logging').class).toBe('unclassified');
  });
});

describe('R-8.3 classification order', () => {
  it('R-8.3: annotations beat the name pattern', () => {
    expect(one({ name: 'delete_x', annotations: { readOnlyHint: true } })).toEqual({
      class: 'read',
      reason: 'annotation readOnlyHint=true',
    });
    expect(one({ name: 'get_x', annotations: { readOnlyHint: false } })).toEqual({
      class: 'write',
      reason: 'annotation readOnlyHint=false',
    });
    expect(one({ name: 'sync_ledger', annotations: { destructiveHint: true } })).toEqual({
      class: 'write',
      reason: 'annotation destructiveHint=true',
    });
  });

  it('R-8.3: only boolean annotation values count', () => {
    const annotations = { readOnlyHint: 'true', destructiveHint: 1 };
    expect(one({ name: 'sync_ledger', annotations })).toEqual({
      class: 'unclassified',
      reason: 'no annotation, no pattern match',
    });
    expect(one({ name: 'get_x', annotations: 'garbage' }).reason).toBe('read prefix');
    expect(one({ name: 'get_x', annotations: { destructiveHint: false } }).reason).toBe('read prefix');
  });

  it('R-8.3: flags beat annotations', () => {
    const tool = { name: 'read_graph', annotations: { readOnlyHint: true } };
    expect(one(tool, { writeTools: ['read_*'] })).toEqual({ class: 'write', reason: '--write-tools read_*' });
    const other = { name: 'apply_discount', annotations: { readOnlyHint: false } };
    expect(one(other, { readTools: ['apply_*'] })).toEqual({ class: 'read', reason: '--read-tools apply_*' });
  });

  it('R-8.3: when --write-tools and --read-tools both match, write wins', () => {
    expect(one('sync_ledger', { writeTools: ['sync_*'], readTools: ['*'] })).toEqual({
      class: 'write',
      reason: '--write-tools sync_*',
    });
  });

  it('R-8.2: --write-tools replaces the default write list', () => {
    const rules = { writeTools: ['pay_*'] };
    expect(one('create_booking', rules)).toEqual({ class: 'unclassified', reason: 'no annotation, no pattern match' });
    expect(one('pay_invoice', rules)).toEqual({ class: 'write', reason: '--write-tools pay_*' });
    expect(one('get_booking', rules)).toEqual({ class: 'read', reason: 'read prefix' });
  });

  it('R-8.2: --read-tools adds to the read prefixes', () => {
    expect(one('sync_ledger', { readTools: ['sync_*'] })).toEqual({ class: 'read', reason: '--read-tools sync_*' });
    expect(one('get_booking', { readTools: ['sync_*'] }).reason).toBe('read prefix');
  });

  it('R-8.2: user globs match the literal name, case-sensitively', () => {
    expect(one('SyncLedger', { writeTools: ['sync_*'] }).class).toBe('unclassified');
    expect(one('sync-ledger', { writeTools: ['sync_*'] }).class).toBe('unclassified');
  });

  it('R-8.3: a tool the upstream did not list is unclassified even when a pattern matches', () => {
    const { classifier } = classify([{ name: 'create_booking' }], { writeTools: ['create_*'] });
    expect(classifier.classOf('create_booking')).toBe('write');
    expect(classifier.classOf('create_ghost')).toBe('unclassified');
  });

  it('R-8.3: classifying again replaces the earlier list', () => {
    const classifier = new ToolClassifier({}, keyFields);
    classifier.classifyListed([{ name: 'create_booking' }]);
    classifier.classifyListed([{ name: 'get_booking' }]);
    expect(classifier.classOf('create_booking')).toBe('unclassified');
    expect(classifier.classOf('get_booking')).toBe('read');
  });

  it('R-8.3: tool names like __proto__ classify without touching prototypes', () => {
    const names = ['__proto__', 'constructor', 'hasOwnProperty', 'toString'];
    const { classifier, list } = classify(names.map((name) => ({ name })));
    expect(list.map((entry) => entry.class)).toEqual(['unclassified', 'unclassified', 'unclassified', 'unclassified']);
    for (const name of [...names, 'valueOf']) expect(classifier.classOf(name)).toBe('unclassified');
    const annotated = classify([{ name: '__proto__', annotations: { readOnlyHint: true } }]).classifier;
    expect(annotated.classOf('__proto__')).toBe('read');
  });

  it("R-8.3: server-memory's 9 tools are classified by their annotations", () => {
    const write = { readOnlyHint: false, destructiveHint: false };
    const destructive = { readOnlyHint: false, destructiveHint: true };
    const read = { readOnlyHint: true, destructiveHint: false };
    const tools: ToolFacts[] = [
      { name: 'create_entities', annotations: write },
      { name: 'create_relations', annotations: write },
      { name: 'add_observations', annotations: write },
      { name: 'delete_entities', annotations: destructive },
      { name: 'delete_observations', annotations: destructive },
      { name: 'delete_relations', annotations: destructive },
      { name: 'read_graph', annotations: read },
      { name: 'search_nodes', annotations: read },
      { name: 'open_nodes', annotations: read },
    ];
    const summary = classify(tools).list.map((entry) => `${entry.name}:${entry.class}:${entry.reason}`);
    expect(summary).toEqual([
      ...tools.slice(0, 6).map((tool) => `${tool.name}:write:annotation readOnlyHint=false`),
      ...tools.slice(6).map((tool) => `${tool.name}:read:annotation readOnlyHint=true`),
    ]);
    expect(classify(tools.map(({ name }) => ({ name }))).list.map((entry) => entry.class)).toEqual([
      ...Array<string>(6).fill('write'),
      ...Array<string>(3).fill('read'),
    ]);
  });

  it('R-1.2: each tool lists the key fields detected in its input schema', () => {
    const { list } = classify([
      { name: 'create_booking', inputSchema: { type: 'object', properties: { idempotency_key: {}, date: {} } } },
      { name: 'get_booking', inputSchema: 'garbage' },
    ]);
    expect(list.map((entry) => entry.keyFields)).toEqual([['idempotency_key'], []]);
  });
});

describe('R-8.4 start-up lines', () => {
  it('R-8.4: the lines follow the product description', () => {
    const { list } = classify([
      { name: 'create_booking', inputSchema: { properties: { idempotency_key: { type: 'string' } } } },
      { name: 'get_booking' },
      { name: 'apply_discount', annotations: { readOnlyHint: false } },
      { name: 'sync_ledger' },
      { name: 'pay_invoice', inputSchema: { properties: { idempotencyKey: {}, amount: {} } } },
    ]);
    expect(formatClassificationLines(list)).toEqual([
      'Upstream tools (5):',
      '  write        create_booking  (default write pattern)',
      '  read         get_booking  (read prefix)',
      '  write        apply_discount  (annotation readOnlyHint=false)',
      '  unclassified sync_ledger  (no annotation, no pattern match)',
      '  write        pay_invoice  (default write pattern)',
      'WARNING: tool "sync_ledger" could not be classified as read or write. It is forwarded but triggers no ' +
        'scenario and is not judged. Use --write-tools or --read-tools to classify it.',
      'Key fields detected: create_booking (idempotency_key), pay_invoice (idempotencyKey)',
    ]);
  });

  it('R-8.4: no key fields and no tools', () => {
    expect(formatClassificationLines([])).toEqual(['Upstream tools (0):', 'Key fields detected: none']);
  });

  it('R-8.4: control characters in tool names cannot forge stderr lines', () => {
    const { list } = classify([{ name: 'x\n[cuonztech-agent-harness]   read fake' }]);
    const lines = formatClassificationLines(list);
    expect(lines[1]).toBe('  unclassified x\\u000a[cuonztech-agent-harness]   read fake  (no annotation, no pattern match)');
    expect(lines.every((line) => !line.includes('\n'))).toBe(true);
  });
});

describe('issue 42: tools that run statements are not read by their prefix', () => {
  // mcp-sqlite (jparkerweb) lists `query(sql, values)`, which runs any SQL, INSERT included.
  const sqliteQuery = { name: 'query', inputSchema: { type: 'object', properties: { sql: { type: 'string' }, values: {} } } };

  it('a bare "query" is unclassified, whatever its schema', () => {
    expect(one(sqliteQuery)).toEqual({
      class: 'unclassified',
      reason: 'read prefix overruled: a bare "query" can run any statement',
    });
    expect(one('query').class).toBe('unclassified');
    expect(one('Query').class).toBe('unclassified');
  });

  it.each([
    ['sql', { sql: { type: 'string' } }, undefined],
    ['sql_query', { sql_query: {} }, undefined],
    ['sqlStatement', { sqlStatement: {} }, undefined],
    ['raw_sql', { raw_sql: {} }, undefined],
    // server-sqlite's read_query: the argument is `query`, its description says SQL.
    ['query', { query: { type: 'string', description: 'SELECT SQL query to execute' } }, undefined],
    ['statement', { statement: { type: 'string' } }, 'Run a SQL statement against the database'],
  ])('a read-prefixed tool with input %s takes SQL: unclassified', (input, properties, description) => {
    const verdict = one({ name: 'read_query', description, inputSchema: { type: 'object', properties } });
    expect(verdict).toEqual({
      class: 'unclassified',
      reason: `read prefix overruled: input ${JSON.stringify(input)} takes SQL, which can write`,
    });
  });

  it('a search string named "query" keeps the read prefix (server-memory search_nodes)', () => {
    const searchNodes = {
      name: 'search_nodes',
      description: 'Search for nodes in the knowledge graph based on a query',
      inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'The search query to match' } } },
    };
    expect(one(searchNodes)).toEqual({ class: 'read', reason: 'read prefix' });
    expect(one('query_status')).toEqual({ class: 'read', reason: 'read prefix' });
  });

  it('flags and annotations still come first (R-8.3, R-8.3.1 intact)', () => {
    expect(one(sqliteQuery, { writeTools: ['query'] })).toEqual({ class: 'write', reason: '--write-tools query' });
    expect(one(sqliteQuery, { readTools: ['query'] })).toEqual({ class: 'read', reason: '--read-tools query' });
    expect(one({ ...sqliteQuery, annotations: { readOnlyHint: true } })).toEqual({
      class: 'read',
      reason: 'annotation readOnlyHint=true',
    });
    const hinted = { ...sqliteQuery, annotations: { readOnlyHint: false, idempotentHint: true } };
    const { classifier } = classify([hinted]);
    expect(classifier.classOf('query')).toBe('write');
    expect(classifier.isIdempotent('query')).toBe(true);
    // A write by the default patterns stays a write with a SQL argument (write is the safe side).
    expect(one({ name: 'write_query', inputSchema: { properties: { query: { description: 'SQL' } } } }).class).toBe('write');
  });

  it('an untrusted schema (prototype keys, odd shapes) is read safely', () => {
    expect(one({ name: 'get_x', inputSchema: { properties: JSON.parse('{"__proto__":{"description":"SQL"}}') } })).toEqual({
      class: 'read',
      reason: 'read prefix',
    });
    expect(one({ name: 'get_x', inputSchema: { properties: [] } }).class).toBe('read');
    expect(one({ name: 'get_x', description: 42, inputSchema: { properties: { query: 'SQL' } } }).class).toBe('read');
  });

  it('the start-up warning names --write-tools for them, in one line', () => {
    const { list } = classify([
      sqliteQuery,
      { name: 'read_query', inputSchema: { properties: { query: { description: 'SELECT SQL query' } } } },
      { name: 'list_tables' },
    ]);
    const warnings = formatClassificationLines(list).filter((line) => line.startsWith('WARNING'));
    expect(warnings).toEqual([
      'WARNING: 2 tools run statements (SQL can write as well as read), so their read prefix is not trusted: query, read_query. ' +
        'They are forwarded but trigger no scenario and are not judged. ' +
        'Name those that can write with --write-tools to test their writes (--read-tools for those the server limits to SELECT).',
    ]);
    const single = formatClassificationLines(classify([sqliteQuery]).list).filter((line) => line.startsWith('WARNING'));
    expect(single).toEqual([
      'WARNING: tool "query" runs statements (SQL can write as well as read), so its read prefix is not trusted: ' +
        'it is forwarded but triggers no scenario and is not judged. ' +
        'Name it with --write-tools to test its writes (--read-tools if the server runs only SELECT).',
    ]);
  });
});

describe('issues 41/42: unclassified tools get one summary warning', () => {
  it('several unclassified tools: one line naming them all, not one identical line each', () => {
    const { list } = classify([{ name: 'sync_ledger' }, { name: 'echo' }, { name: 'get_x' }, { name: 'x\u001b[2J' }]);
    const warnings = formatClassificationLines(list).filter((line) => line.startsWith('WARNING'));
    expect(warnings).toEqual([
      'WARNING: 3 tools could not be classified as read or write: sync_ledger, echo, x\\u001b[2J. ' +
        'They are forwarded but trigger no scenario and are not judged. Use --write-tools or --read-tools to classify them.',
    ]);
  });
});

describe('isClassificationLine (a trial shows the classification once)', () => {
  it('every line formatClassificationLines writes is recognised, and no other', () => {
    const { list } = classify([{ name: 'create_x' }, { name: 'a' }, { name: 'b' }, { name: 'query' }, { name: 'c_x' }]);
    const lines = formatClassificationLines(list);
    expect(lines.filter((line) => line.startsWith('WARNING'))).toHaveLength(2);
    expect(lines.every(isClassificationLine)).toBe(true);
    expect(formatClassificationLines(classify([{ name: 'a' }]).list).every(isClassificationLine)).toBe(true);
    expect(isClassificationLine('WARNING: scenario F1 can never trigger')).toBe(false);
    expect(isClassificationLine('proxy ready: scenario F1')).toBe(false);
  });
});
