#!/usr/bin/env node
import { processIo } from './io.js';
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2), processIo());
// The proxy leaves nothing to wait for once main resolves; exit even if a stream still holds the loop.
process.exit();
