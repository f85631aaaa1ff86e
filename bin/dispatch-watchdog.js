#!/usr/bin/env node
// Entry point: the compiled CLI (npm ci builds it through the prepare script).
import { runProcess } from '../dist/src/cli.js';

await runProcess();
