/**
 * The test tiers, told apart by file name (vitest.config.ts runs each as a project; test/tiers.test.ts keeps
 * every file in its tier):
 *   unit  `*.test.ts`      no process spawned, no port listened on, no daemon or Fastify app (`npm run test:fast`)
 *   api   `*.api.test.ts`  in-process product surfaces: a daemon (startSvcDaemon on port 0), a Fastify app
 *                          (buildApp + inject), the CLI's main() in-process, loopback servers standing in for vendors
 *   e2e   `*.e2e.test.ts`  child processes: the svc binary and daemon, real harness binaries, a browser, the
 *                          sandbox, npm install
 * A file that needs two tiers is named for the heavier one.
 */

export type Tier = 'unit' | 'api' | 'e2e'

/** The folders that hold test files. */
export const TEST_ROOTS = [
  'core',
  'daemon',
  'ledger-verify',
  'redaction',
  'harness-contract',
  'hook-key',
  'testing',
  'plugins',
  'harnesses',
  'guardrail-providers',
  'cli',
  'test',
] as const

const roots = `{${TEST_ROOTS.join(',')}}`

/** Each tier's vitest `include` and `exclude`. */
export const TIER_FILES: Readonly<Record<Tier, { readonly include: string[]; readonly exclude: string[] }>> = {
  unit: { include: [`${roots}/**/*.test.ts`], exclude: ['**/node_modules/**', '**/*.api.test.ts', '**/*.e2e.test.ts'] },
  api: { include: [`${roots}/**/*.api.test.ts`], exclude: ['**/node_modules/**'] },
  e2e: { include: [`${roots}/**/*.e2e.test.ts`], exclude: ['**/node_modules/**'] },
}

/** The tier a test file's name puts it in (undefined: not a test file). */
export function tierOf(file: string): Tier | undefined {
  if (file.endsWith('.api.test.ts')) return 'api'
  if (file.endsWith('.e2e.test.ts')) return 'e2e'
  if (file.endsWith('.test.ts')) return 'unit'
  return undefined
}
