#!/usr/bin/env node
// The canopy CLI, as `npm run build` made it.
require('../dist/src/cli/bundle/run.js').runCli();
