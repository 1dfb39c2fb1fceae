#!/usr/bin/env node
// The `coffer` command. Runs the bundle `npm run build` writes when it exists (installed
// package, container image) and otherwise the TypeScript source directly (a checkout; Node >= 24
// strips types).
import './check-node.js';
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.mjs', import.meta.url);
const entry = existsSync(compiled) ? compiled : new URL('../src/cli/main.ts', import.meta.url);
await import(entry.href);
