import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/** Unit tests and the corpus: no daemon, no CLI process (`npm run test:fast`). */
export const FAST = ['{core,plugins,harnesses,guardrail-providers,cli}/**/*.test.ts', 'test/corpus/**/*.test.ts', 'test/gate-index.test.ts', 'test/architecture.test.ts']

// Hundreds of daemons and CLI processes start during a run, each in a fresh $SVC_HOME: one shared V8 compile
// cache (inherited by every child) spares each of them stripping and compiling the same TypeScript again.
process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('./node_modules/.cache/svc-node-compile', import.meta.url))

export default defineConfig({
  test: {
    // Hashes the test operator password once per run (test/helpers/operator-password.ts).
    globalSetup: ['test/global-setup.ts'],
    include: process.env.SVC_TEST_FAST ? FAST : ['{core,plugins,harnesses,guardrail-providers,cli,test}/**/*.test.ts'],
    // The shim test starts the hook shim against a local server: a process boundary, kept out of the fast loop.
    exclude: process.env.SVC_TEST_FAST ? ['**/node_modules/**', 'plugins/installer/svc-hook.test.ts'] : ['**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every core: files run side by side (each test builds its own temp homes, engines and ports).
    maxWorkers: Math.max(2, availableParallelism()),
    // Each file gets a fresh module graph: some plugins keep per-process state (shell-analysis's terminal
    // line buffers), so reusing workers across files (isolate: false) made results depend on file order.
    isolate: true,
  },
})
