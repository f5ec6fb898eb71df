#!/usr/bin/env node
// The `svc` command: the compiled CLI (built by `npm install` through the prepare script).
import '../dist/cli/main.js';
