/**
 * A throwaway world for running fixtures: a temp `$SVC_HOME`, a governed user's home with a project directory
 * (`~/proj`, the fixtures' default cwd), and an engine over the policy files under test. Nothing of the real
 * `$SVC_HOME` is touched.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import pino from 'pino'
import { createEngine, type Engine } from '../../core/index.ts'
import { loadRuleAuthoring } from '../../plugins/rule-lifecycle/index.ts'
import { CliError } from '../io.ts'
import { allPlugins } from '../plugins.ts'

export interface FixtureWorld {
  readonly engine: Engine
  readonly home: string
  readonly cwd: string
  /** Policy files under test, with where their fixtures live. */
  readonly files: readonly { policy: string; fixtures: string }[]
  close(): Promise<void>
}

/** Which policy files a path names: a policy file, a registry rule folder (rule.yaml) or a directory of policy files. */
export function policyFilesAt(path: string): string[] {
  const abs = resolve(path)
  if (!existsSync(abs)) throw new CliError(`${path} does not exist`)
  if (!statSync(abs).isDirectory()) return [abs]
  if (existsSync(join(abs, 'rule.yaml'))) return [join(abs, 'rule.yaml')]
  const files = readdirSync(abs)
    .filter((f) => /\.ya?ml$/.test(f) && !f.endsWith('.fixtures.yaml'))
    .sort()
    .map((f) => join(abs, f))
  if (files.length === 0) throw new CliError(`${path} holds no policy files (*.yaml) and no rule.yaml`)
  return files
}

/** Builds the world with `files` as the daemon layer (copied, so their own directory is never written). */
export async function fixtureWorld(files: readonly string[], svcPorts?: readonly number[]): Promise<FixtureWorld> {
  const root = mkdtempSync(join(tmpdir(), 'svc-policy-test-'))
  const home = join(root, 'home', 'dev')
  const cwd = join(home, 'proj')
  const policiesDir = join(root, 'policies')
  for (const d of [cwd, join(home, '.ssh'), join(home, '.aws'), policiesDir]) mkdirSync(d, { recursive: true })
  files.forEach((f, i) => {
    copyFileSync(f, join(policiesDir, `${String(i).padStart(3, '0')}-${basename(f) === 'rule.yaml' ? 'rule' : basename(f, '.yaml')}.yaml`))
  })
  const { fixturesPathFor } = await loadRuleAuthoring()
  const engine = await createEngine({
    plugins: allPlugins,
    home: join(root, 'svc-home'),
    policiesDir,
    userHome: home,
    log: pino({ level: 'silent' }),
    ...(svcPorts ? { svcPorts } : {}),
  })
  return {
    engine,
    home,
    cwd,
    files: files.map((policy) => ({ policy, fixtures: fixturesPathFor(policy) })),
    async close() {
      await engine.close()
      rmSync(root, { recursive: true, force: true })
    },
  }
}
