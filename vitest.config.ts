import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/** Unit tests and the corpus: no daemon, no CLI process (`npm run test:fast`). */
export const FAST = ['{core,daemon,ledger-verify,redaction,testing,plugins,harnesses,guardrail-providers,cli}/**/*.test.ts', 'test/corpus/**/*.test.ts', 'test/gate-index.test.ts', 'test/architecture.test.ts']

// Hundreds of daemons and CLI processes start during a run, each in a fresh $SVC_HOME: one shared V8 compile
// cache (inherited by every child) spares each of them stripping and compiling the same TypeScript again.
process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('./node_modules/.cache/svc-node-compile', import.meta.url))

const fast = Boolean(process.env.SVC_TEST_FAST)
// The shim test starts the hook shim against a local server: a process boundary, kept out of the fast loop.
const exclude = fast ? ['**/node_modules/**', 'plugins/installer/svc-hook.test.ts'] : ['**/node_modules/**']

export default defineConfig({
  test: {
    // Hashes the test operator password once per run for the daemons tests start (test/helpers/operator-password.ts).
    globalSetup: fast ? [] : ['test/global-setup.ts'],
    include: fast ? FAST : ['{core,daemon,ledger-verify,redaction,testing,plugins,harnesses,guardrail-providers,cli,test}/**/*.test.ts'],
    exclude,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every core: files run side by side (each test builds its own temp homes, engines and ports).
    maxWorkers: Math.max(2, availableParallelism()),
    // Test files share their worker's loaded modules (a fresh module graph per file cost a third of the suite's
    // CPU): no module keeps state across engines or tests (docs/architecture.md, "State"). SVC_TEST_ISOLATE=1
    // gives every file its own graph again, to tell an order-dependent test from a broken one.
    isolate: process.env.SVC_TEST_ISOLATE === '1',
  },
})
