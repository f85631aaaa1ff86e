#!/bin/sh
# Regenerate .onex_state.example/after-a-run/ (what one watchdog run writes for the example state
# dir) from the code as it is; test/integration/example-state.test.ts fails when it is stale.
set -e
cd "$(dirname "$0")/.."
UPDATE_EXAMPLE=1 npx vitest run test/integration/example-state.test.ts
