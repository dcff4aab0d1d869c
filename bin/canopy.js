#!/usr/bin/env node
// The canopy CLI, from the compiled sources (`npm run build`).
require('../dist/src/cli/index.js').main();
