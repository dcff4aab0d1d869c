#!/bin/sh
# The canopy worker image's build steps, run in the directory holding canopy's sources: by the Dockerfile
# in the image, and by test/docker/worker-image.test.ts in a copy of the repository.
set -eu
cd "${1:?usage: worker-image.sh <canopy directory>}"
# The worker talks to its cluster's Temporal server, so the install fetches no Temporal CLI.
CANOPY_SKIP_TEMPORAL_CLI=1 npm ci --no-audit --no-fund
npm run build
node dist/src/setup-agents.js
# Running canopy needs none of the dev dependencies (the compiler, linters, test tools): the build is done.
npm prune --omit=dev --no-audit --no-fund
