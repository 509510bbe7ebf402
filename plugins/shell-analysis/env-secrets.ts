/**
 * A .env loaded into an environment (`source .env`, `set -a; . .env`, `dotenv -f .env --`, `env-cmd`,
 * `docker run --env-file .env`) is allowed: the secrets reach the program that needs them. Printing that
 * environment is reading the file by another route, so it is the `env_dump` signal: `env`, `printenv`,
 * `set`, `export -p`, `declare -p/-x` after the load, `dotenv list|get`, a container told to run `env`.
 */
import type { Invocation } from './invocation.ts'
import type { AnalysisState } from './state.ts'

const ENV_FILE = /(^|\/)(\.env(\.[\w.-]+)?|[\w.-]+\.env)$/
const TEMPLATE = /\.(example|sample|template|dist|defaults)(\.env)?$/
const LOADERS: ReadonlySet<string> = new Set(['dotenv', 'env-cmd', 'dotenvx', 'direnv'])
const CONTAINERS: ReadonlySet<string> = new Set(['docker', 'podman', 'nerdctl'])
const DUMPERS: ReadonlySet<string> = new Set(['env', 'printenv'])

function isEnvFile(arg: string | undefined): boolean {
  return arg !== undefined && ENV_FILE.test(arg) && !TEMPLATE.test(arg)
}

/** Notes a .env load and flags a dump of the environment it filled. */
export function watchEnvSecrets(st: AnalysisState, inv: Invocation, program: string): void {
  const args = inv.argv.slice(1)
  if ((program === 'source' || program === '.') && isEnvFile(args[0])) st.secretEnv = true
  if (LOADERS.has(program) || program === 'env') {
    if (args.some(isEnvFile) || (LOADERS.has(program) && args.length > 0)) st.secretEnv = program !== 'env' || st.secretEnv || args.some(isEnvFile)
    if ((program === 'dotenv' || program === 'dotenvx') && args.some((a) => a === 'list' || a === 'get' || a === 'ls')) st.signals.add('env_dump')
  }
  if (CONTAINERS.has(program) && args.some((a) => a === '--env-file' || a.startsWith('--env-file='))) {
    // What the container runs sees the file's values: a command that prints its environment prints them.
    if (args.some((a) => DUMPERS.has(a) || /(^|[\s;&|(])(env|printenv|set|export -p)(\s|$|[;&|)])/.test(a))) st.signals.add('env_dump')
  }
  if (!st.secretEnv) return
  const operands = args.filter((a) => !a.startsWith('-') && !/^[A-Za-z_]\w*=/.test(a))
  if (DUMPERS.has(program) && (program === 'printenv' || operands.length === 0)) st.signals.add('env_dump')
  if ((program === 'set' || program === 'export' || program === 'declare' || program === 'typeset') && (args.length === 0 || args.every((a) => /^-[px]+$/.test(a))))
    st.signals.add('env_dump')
  if (inv.argv.some((a) => /^\/proc\/[^/]+\/environ$/.test(a))) st.signals.add('env_dump')
}
