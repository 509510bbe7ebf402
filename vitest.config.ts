import { globSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { filesReachingState } from './scripts/test-isolation.ts'

/** Unit tests and the corpus: no daemon, no CLI process (`npm run test:fast`). */
export const FAST = ['{core,plugins,harnesses,guardrail-providers,cli}/**/*.test.ts', 'test/corpus/**/*.test.ts', 'test/gate-index.test.ts', 'test/architecture.test.ts']

// Hundreds of daemons and CLI processes start during a run, each in a fresh $SVC_HOME: one shared V8 compile
// cache (inherited by every child) spares each of them stripping and compiling the same TypeScript again.
process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('./node_modules/.cache/svc-node-compile', import.meta.url))

const fast = Boolean(process.env.SVC_TEST_FAST)
const root = fileURLToPath(new URL('.', import.meta.url))
// The shim test starts the hook shim against a local server: a process boundary, kept out of the fast loop.
const exclude = fast ? ['**/node_modules/**', 'plugins/installer/svc-hook.test.ts'] : ['**/node_modules/**']
// The fast loop's files whose imports reach per-process state (scripts/test-isolation.ts) get a fresh module
// graph each; the rest reuse their worker's, which spares a third of the loop's CPU.
const isolated = fast ? filesReachingState(root, globSync(FAST, { cwd: root, exclude })) : []

export default defineConfig({
  test: {
    // Hashes the test operator password once per run for the daemons tests start (test/helpers/operator-password.ts).
    globalSetup: fast ? [] : ['test/global-setup.ts'],
    // Fast mode names its files per project below (a project that extends this config adds to its include).
    include: fast ? [] : ['{core,plugins,harnesses,guardrail-providers,cli,test}/**/*.test.ts'],
    exclude,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every core: files run side by side (each test builds its own temp homes, engines and ports).
    maxWorkers: Math.max(2, availableParallelism()),
    // Each file gets a fresh module graph: some plugins keep per-process state (shell-analysis's terminal
    // line buffers), so reusing workers across files (isolate: false) made results depend on file order.
    // The fast loop reuses workers only for files whose imports cannot reach that state.
    isolate: true,
    ...(fast && {
      projects: [
        { extends: true, test: { name: 'fast', include: FAST, exclude: [...exclude, ...isolated], isolate: false } },
        { extends: true, test: { name: 'fast-isolated', include: isolated, isolate: true } },
      ],
    }),
  },
})
