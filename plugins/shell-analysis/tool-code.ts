/**
 * Build tools' own command modes, where the tool runs code or a command given on its command line rather than
 * the project's build: `rake -e CODE` (Ruby), `mix run -e CODE` (Elixir), `mvn exec:exec -Dexec.executable=X
 * -Dexec.args=…` (a command), `cmake -P FILE` (a CMake script whose `execute_process(COMMAND …)` runs commands),
 * `cmake -E copy|rename|rm|tar …` (the file commands they are).
 * Each is analysed as the code or command it is; what svc cannot read there is unknown code.
 */
import { inlineCode } from './execution.ts'
import { instructionsOf } from './files.ts'
import type { Invocation } from './invocation.ts'
import { spawnPositions } from './spawn-positions.ts'
import type { AnalysisState } from './state.ts'

/** Inline-code options of build tools, and the interpreter whose code it is. */
const CODE_OPTIONS: Readonly<Record<string, { readonly options: readonly string[]; readonly language: string; readonly subcommand?: string }>> = {
  rake: { options: ['-e', '--execute', '-E', '--execute-continue', '-p', '--execute-print'], language: 'ruby' },
  mix: { options: ['-e', '--eval'], language: 'elixir', subcommand: 'run' },
}

const MAVENS = /^(?:mvn|mvnw|mvnd)$/

/** `cmake -E` commands that write, copy or remove files, as the shell commands they are (cmake(1) "Run a Command-Line Tool"). */
const CMAKE_E: Readonly<Record<string, string>> = {
  copy: 'cp',
  copy_if_different: 'cp',
  copy_directory: 'cp -r',
  copy_directory_if_different: 'cp -r',
  rename: 'mv',
  create_symlink: 'ln -s',
  create_hardlink: 'ln',
  touch: 'touch',
  touch_nocreate: 'touch',
  make_directory: 'mkdir -p',
  rm: 'rm',
  remove: 'rm -f',
  remove_directory: 'rm -rf',
  tar: 'tar',
  cat: 'cat',
}

/** Shell text a build tool's command mode runs (mvn exec:exec), after analysing any inline code and scripts it runs. */
export function toolCode(st: AnalysisState, inv: Invocation, program: string): string | undefined {
  const { argv } = inv
  const table = CODE_OPTIONS[program]
  if (table !== undefined && (table.subcommand === undefined || argv[1] === table.subcommand)) {
    argv.forEach((a, i) => {
      const inline = table.options.find((o) => o.startsWith('--') && a.startsWith(`${o}=`))
      const code = inline !== undefined ? a.slice(inline.length + 1) : table.options.includes(a) ? argv[i + 1] : undefined
      if (code !== undefined) inlineCode(st, inv, code, `${program} ${a.split('=')[0]}`, table.language)
    })
  }
  if (program === 'cmake') {
    const scripts = argv.flatMap((a, i) => (a === '-P' ? [argv[i + 1] ?? ''] : a.startsWith('-P') && a.length > 2 ? [a.slice(2)] : []))
    for (const script of scripts) {
      const text = instructionsOf(st, inv.scope, script)
      if (text === undefined) continue
      const spawns = spawnPositions('cmake', text)
      if (spawns.unknown) st.signals.add('unknown_code')
      for (const c of spawns.commands) st.analyzeString(c, inv.scope, [...inv.via, `cmake -P ${script}`])
    }
  }
  // `cmake -E copy a ~/.bashrc`: CMake's portable file commands are those commands.
  const portable = program === 'cmake' && argv[1] === '-E' ? CMAKE_E[argv[2] ?? ''] : undefined
  if (portable !== undefined) return [portable, ...argv.slice(3).map((a) => `'${a.replace(/'/g, `'\\''`)}'`)].join(' ')
  if (MAVENS.test(program.replace(/^.*\//, '')) && argv.some((a) => /(?:^|:)exec:exec$/.test(a))) {
    const property = (name: string): string | undefined => argv.find((a) => a.startsWith(`-D${name}=`))?.slice(name.length + 3)
    const executable = property('exec.executable')
    // Without an executable on the command line it comes from the POM (the build's own code: the sandbox's).
    if (executable !== undefined) return [executable, property('exec.args') ?? ''].join(' ').trim()
  }
  return undefined
}
