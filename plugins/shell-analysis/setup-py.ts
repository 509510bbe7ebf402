/**
 * Installing or building a local Python project runs its `setup.py` (setuptools imports it to read the
 * metadata, then to build): `pip install .`, `pip install -e ./pkg`, `python -m pip wheel .`, `uv pip install .`,
 * `python -m build`. The code an earlier call planted there runs with a routine install, so at trigger time
 * the setup.py of each local project named is read from disk (or from this command's writes) and analysed as
 * inline Python, as conftest.py is for pytest.
 */
import { join } from 'node:path'
import { instructionsOf } from './files.ts'
import type { Invocation } from './invocation.ts'
import type { AnalysisState } from './state.ts'

const PIP_SUBCOMMANDS: ReadonlySet<string> = new Set(['install', 'wheel', 'download'])
/** pip options whose value is in the next argument (so it is not taken for a project). */
const PIP_VALUES: ReadonlySet<string> = new Set([
  '-r',
  '--requirement',
  '-c',
  '--constraint',
  '-t',
  '--target',
  '--prefix',
  '--root',
  '-i',
  '--index-url',
  '--extra-index-url',
  '-f',
  '--find-links',
  '--python',
  '-w',
  '--wheel-dir',
  '-d',
  '--dest',
  '--platform',
  '--python-version',
  '--implementation',
  '--abi',
  '--src',
  '--upgrade-strategy',
  '--progress-bar',
  '--log',
  '--cache-dir',
  '--proxy',
  '--cert',
  '--client-cert',
  '--trusted-host',
  '--config-settings',
  '-C',
  '--global-option',
  '--build-option',
  '--no-binary',
  '--only-binary',
  '--report',
  '--root-user-action',
])

/** The argv after the word that makes this a pip run (`pip`, `python -m pip`, `uv pip`), or undefined. */
function pipArgs(program: string, argv: readonly string[]): readonly string[] | undefined {
  if (/^pip[\d.]*$/.test(program) || program === 'pipx') return argv.slice(1)
  if (/^python[\d.]*$/.test(program)) {
    const m = argv.findIndex((a, i) => a === '-m' && /^pip$/.test(argv[i + 1] ?? ''))
    return m === -1 ? undefined : argv.slice(m + 2)
  }
  if (program === 'uv' && argv[1] === 'pip') return argv.slice(2)
  return undefined
}

/** The local project directories this command installs or builds, or none. */
function localProjects(program: string, argv: readonly string[]): string[] {
  // `python -m build [DIR]` / `pyproject-build [DIR]`: the project is DIR, the working directory by default.
  const build = program === 'pyproject-build' ? 0 : /^python[\d.]*$/.test(program) ? argv.findIndex((a, i) => a === 'build' && argv[i - 1] === '-m') : -1
  if (build !== -1) return [argv.slice(build + 1).find((a) => !a.startsWith('-')) ?? '.']
  const args = pipArgs(program, argv)
  if (args === undefined || !PIP_SUBCOMMANDS.has(args[0] ?? '')) return []
  const out: string[] = []
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!
    if (PIP_VALUES.has(a)) i++
    else if (a === '-e' || a === '--editable') {
      if (args[i + 1] !== undefined) out.push(args[++i]!)
    } else if (a.startsWith('--editable=')) out.push(a.slice(11))
    // A local project is a path (`.`, `./pkg`, `/abs/pkg`, `file:...`); `name` or `name==1.0` comes from an index.
    else if (!a.startsWith('-') && /^(\.|\/|~|file:)/.test(a)) out.push(a.replace(/^file:(\/\/)?/, '').replace(/\[.*\]$/, ''))
  }
  return out
}

/** The setup.py files this command would run, with a label each. */
export function setupScripts(st: AnalysisState, inv: Invocation, program: string): { label: string; text: string }[] {
  const cwd = inv.scope.cwd
  if (cwd === undefined) return []
  const out: { label: string; text: string }[] = []
  for (const dir of localProjects(program, inv.argv).slice(0, 8)) {
    const path = join(dir.startsWith('/') || dir.startsWith('~') ? '' : cwd, dir, 'setup.py')
    const text = instructionsOf(st, inv.scope, path)
    if (text !== undefined) out.push({ label: `${program} ${join(dir, 'setup.py')}`, text })
  }
  return out
}
