/**
 * pytest imports every `conftest.py` under the directories it collects (and Python runs `usercustomize.py`
 * on start, gated as a write by the persistence pack): the code an earlier call planted in a conftest runs
 * with a routine `pytest`. At trigger time the conftest files of the working directory and its usual test
 * directories are read from disk and analysed as inline Python.
 */
import { join } from 'node:path'
import { instructionsOf } from './files.ts'
import type { Invocation } from './invocation.ts'
import type { AnalysisState } from './state.ts'

const PYTEST: ReadonlySet<string> = new Set(['pytest', 'py.test', 'pytest-3'])
const DIRS = ['.', 'tests', 'test', 'testing', 'src', 'src/tests']

/** The conftest.py files a pytest run would import, or none when this is no pytest run. */
export function conftestFiles(st: AnalysisState, inv: Invocation, program: string): { label: string; text: string }[] {
  const viaModule = /^python[\d.]*$/.test(program) && inv.argv.some((a, i) => a === '-m' && /^pytest$/.test(inv.argv[i + 1] ?? ''))
  if (!PYTEST.has(program) && !viaModule && !(program === 'tox' || program === 'nox')) return []
  const cwd = inv.scope.cwd
  if (cwd === undefined) return []
  const roots = [
    ...DIRS,
    ...inv.argv
      .slice(1)
      .filter((a) => !a.startsWith('-') && !/^pytest$/.test(a))
      .map((a) => a.replace(/::.*$/, '')),
  ]
  const out: { label: string; text: string }[] = []
  for (const dir of [...new Set(roots)].slice(0, 16)) {
    const text = instructionsOf(st, inv.scope, join(cwd, dir, 'conftest.py'))
    if (text !== undefined) out.push({ label: `${program} ${join(dir, 'conftest.py')}`, text })
  }
  return out
}
