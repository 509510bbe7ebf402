import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { TIER_FILES } from './test/tiers.ts'

// Hundreds of daemons and CLI processes start during a run, each in a fresh $SVC_HOME: one shared V8 compile
// cache (inherited by every child) spares each of them stripping and compiling the same TypeScript again.
process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('./node_modules/.cache/svc-node-compile', import.meta.url))

// Hashes the test operator password once per run for the daemons api and e2e tests start (test/helpers/operator-password.ts).
const globalSetup = ['test/global-setup.ts']

/**
 * Three projects, told apart by file name (test/tiers.ts): `unit` (`*.test.ts`: no process, no port, no daemon;
 * `npm run test:fast`), `api` (`*.api.test.ts`: in-process daemons and apps, the CLI in-process, loopback servers)
 * and `e2e` (`*.e2e.test.ts`: child processes, harness binaries, a browser, the sandbox). `vitest run` runs all three.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every core: files run side by side (each test builds its own temp homes, engines and ports).
    maxWorkers: Math.max(2, availableParallelism()),
    // Test files share their worker's loaded modules (a fresh module graph per file cost a third of the suite's
    // CPU): no module keeps state across engines or tests (docs/architecture.md, "State"). SVC_TEST_ISOLATE=1
    // gives every file its own graph again, to tell an order-dependent test from a broken one.
    isolate: process.env.SVC_TEST_ISOLATE === '1',
    projects: [
      { extends: true, test: { name: 'unit', ...TIER_FILES.unit } },
      { extends: true, test: { name: 'api', ...TIER_FILES.api, globalSetup } },
      { extends: true, test: { name: 'e2e', ...TIER_FILES.e2e, globalSetup } },
    ],
  },
})
