import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { DEFAULT_TOOLS, Driver } from './support/session-driver.js';
import { documentOf, F } from './support/report-docs.js';
it('scratch', () => {
  const d = new Driver(F('F1'), DEFAULT_TOOLS);
  for (let i = 0; i < 20000; i++) { d.call('create_booking', { id: i % 5000, note: 'x'.repeat(300) }); }
  writeFileSync('/tmp/h1x/big.json', documentOf(d, 'finished'));
}, 120000);
