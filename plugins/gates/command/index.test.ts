/** The `command` predicate on hand-built analysed requests (the analyser itself is tested in shell-analysis). */
import { describe, expect, it } from 'vitest'
import type { EvalContext, EvalRequest, ShellCommand } from '../../../core/index.ts'
import { runGateCases } from '../../../testing/gate-tester.ts'
import command, { type CommandValue } from './index.ts'

const ctx: EvalContext = { now: 0, home: '/home/dev' }
const where = { gateId: 't', loc: { file: 'test.yaml' } }

function request(...commands: Partial<ShellCommand>[]): EvalRequest {
  const full = commands.map((c): ShellCommand => {
    const argv = c.argv ?? []
    return { program: c.program ?? argv[0] ?? '', argv, text: argv.join(' '), via: c.via ?? [], ...(c.paths ? { paths: c.paths } : {}), ...(c.writes ? { writes: c.writes } : {}) }
  })
  return { sessionId: 's', source: 't', tool: 'Bash', input: {}, paths: [], urls: [], shell: { raw: full.map((c) => c.text).join('; '), commands: full, signals: [] } }
}
const test = (value: CommandValue, req: EvalRequest) => command.gateKind.compile(value, where)(req, ctx)

describe('command predicate', () => {
  it('matches program, flags in clusters and long form, and paths of the same command', () => {
    const v: CommandValue = { program: 'rm', flags_any: ['r', 'recursive'], paths_any: ['~', '/'] }
    expect(test(v, request({ argv: ['rm', '-fr', '/home/dev'], paths: ['/home/dev'] }))).toBe('command `rm -fr /home/dev`: flag -r, path /home/dev')
    expect(test(v, request({ argv: ['rm', '--recursive', '/'], paths: ['/'], via: ['sudo'] }))).toContain('(via sudo)')
    expect(test(v, request({ argv: ['rm', '-f', '/'], paths: ['/'] }))).toBeUndefined()
    expect(test(v, request({ argv: ['rm', '--', '-r', 'x'], paths: ['/home/dev/proj/-r'] }))).toBeUndefined()
    // The flag and the path must belong to the same simple command.
    expect(test(v, request({ argv: ['rm', '-r', 'build'], paths: ['/p/build'] }, { argv: ['ls', '/'], paths: ['/'] }))).toBeUndefined()
  })

  it('reads the subcommand after global options, so message text is never a subcommand', () => {
    const v: CommandValue = { program: 'git', subcommand: 'reset', args_any: ['--hard'] }
    expect(test(v, request({ argv: ['git', '-C', 'dir', 'reset', '--hard'] }))).toBe('command `git -C dir reset --hard`: argument --hard')
    expect(test(v, request({ argv: ['git', 'commit', '-m', 'reset --hard'] }))).toBeUndefined()
  })

  it('supports args_all, args_none, program_not, paths_except, writes_any and via_any', () => {
    expect(test({ program: 'svc', args_all: ['false-positive', 'apply'] }, request({ argv: ['svc', 'false-positive', 'apply', 'x'] }))).toBe('command `svc false-positive apply x`')
    expect(test({ program: 'svc', args_all: ['false-positive', 'apply'] }, request({ argv: ['svc', 'false-positive', '12'] }))).toBeUndefined()
    expect(test({ program: 'git', args_none: ['-n'] }, request({ argv: ['git', 'clean', '-n'] }))).toBeUndefined()
    expect(test({ program: 'git', args_none: ['-n'] }, request({ argv: ['git', 'clean', '-f'] }))).toBe('command `git clean -f`')
    expect(test({ program_not: ['cat'], paths_any: ['**/.env'] }, request({ argv: ['cat', '.env'], paths: ['/p/.env'] }))).toBeUndefined()
    expect(test({ program_not: ['cat'], paths_any: ['**/.env'] }, request({ argv: ['less', '.env'], paths: ['/p/.env'] }))).toBe('command `less .env`: path /p/.env')
    expect(
      test({ program_not: ['ls'], paths_any: ['~/.ssh/id_*'], paths_except: ['**/*.pub'] }, request({ argv: ['cat', 'k.pub'], paths: ['/home/dev/.ssh/id_rsa.pub'] })),
    ).toBeUndefined()
    expect(test({ program_not: ['ls'], paths_any: ['~/.ssh/id_*'], paths_except: ['**/*.pub'] }, request({ argv: ['cat', 'k'], paths: ['/home/dev/.ssh/id_rsa'] }))).toBe(
      'command `cat k`: path /home/dev/.ssh/id_rsa',
    )
    expect(test({ writes_any: ['~/.claude/*.json'] }, request({ argv: ['echo', '{}'], writes: ['/home/dev/.claude/settings.json'] }))).toContain(
      'writes /home/dev/.claude/settings.json',
    )
    expect(test({ reads_any: ['**/.env'] }, request({ argv: ['echo', 'X=1'], paths: ['/p/.env'], writes: ['/p/.env'] }))).toBeUndefined()
    expect(test({ reads_any: ['**/.env'] }, request({ argv: ['cp', '.env', '/tmp/e'], paths: ['/p/.env', '/tmp/e'] }))).toContain('reads /p/.env')
    expect(test({ program: 'rm', via_any: ['bash -c'] }, request({ argv: ['rm', 'x'], via: ['bash -c'] }))).toContain('via bash -c')
  })

  it('matches literal and wildcard program names in one list (literals by set lookup, the rest by glob)', () => {
    const v: CommandValue = { program_not: ['ls', '\\[', 'py*'], paths_any: ['/etc/**'] }
    for (const program of ['ls', '[', 'python3']) expect(test(v, request({ argv: [program, '/etc/x'], paths: ['/etc/x'] })), program).toBeUndefined()
    expect(test(v, request({ argv: ['cat', '/etc/x'], paths: ['/etc/x'] }))).toBe('command `cat /etc/x`: path /etc/x')
    expect(test({ program: ['rm', 'r?'] }, request({ argv: ['rx'] }))).toBe('command `rx`')
    expect(test({ program: ['rm', 'r?'] }, request({ argv: ['rmx'] }))).toBeUndefined()
  })

  it('a field that needs arguments, paths, writes or wrappers does not hold for a command without them', () => {
    const bare = request({ argv: ['git'] })
    for (const v of [
      { program: 'git', subcommand: 'push' },
      { args_none: ['-n'], args_all: ['*'] },
      { flags_any: ['f'] },
      { args_any: ['*'] },
      { paths_any: ['**'] },
      { reads_any: ['**'] },
      { writes_any: ['**'] },
      { via_any: ['*'] },
    ] as CommandValue[]) {
      expect(test(v, bare), JSON.stringify(v)).toBeUndefined()
    }
    expect(test({ program: 'git', args_none: ['-n'] }, bare)).toBe('command `git`')
  })

  it('does not match calls without shell analysis', () => {
    expect(test({ program: '*' }, { sessionId: 's', source: 't', tool: 'Read', input: {}, paths: [], urls: [] })).toBeUndefined()
  })

  it('rejects bad values at load with the reason', () => {
    expect(() => command.gateKind.compile({ program: '[a' }, where)).toThrow(/unclosed "\["/)
  })
})

const analysed = (...commands: { argv: string[]; paths?: string[]; writes?: string[]; via?: string[] }[]) => ({
  raw: commands.map((c) => c.argv.join(' ')).join('; '),
  commands: commands.map((c) => ({
    program: c.argv[0]!.split('/').pop()!,
    argv: c.argv,
    text: c.argv.join(' '),
    via: c.via ?? [],
    ...(c.paths ? { paths: c.paths } : {}),
    ...(c.writes ? { writes: c.writes } : {}),
  })),
  signals: [],
})

runGateCases(
  command,
  {
    pass: [
      { value: { program: 'rm', flags_any: ['r'] }, request: { tool: 'Bash', shell: analysed({ argv: ['rm', '-f', 'x'] }) } },
      { value: { program: 'git', subcommand: 'push', flags_any: ['force', 'f'] }, request: { tool: 'Bash', shell: analysed({ argv: ['git', 'commit', '-m', 'push --force'] }) } },
      { value: { program: 'rm', paths_any: ['~'] }, request: { tool: 'Bash', shell: analysed({ argv: ['rm', '-rf', 'build'], paths: ['/home/tester/p/build'] }) } },
      { value: { program: '*' }, request: { tool: 'Read' } },
    ],
    flag: [
      { value: { program: 'rm', flags_any: ['r'] }, request: { tool: 'Bash', shell: analysed({ argv: ['/bin/rm', '-Rfr', 'x'] }) } },
      { value: { program: 'git', subcommand: 'push', flags_any: ['force', 'f'] }, request: { tool: 'Bash', shell: analysed({ argv: ['git', '-C', 'r', 'push', '--force'] }) } },
      { value: { program: 'rm', paths_any: ['~'] }, request: { tool: 'Bash', shell: analysed({ argv: ['rm', '-rf', '/home/tester'], paths: ['/home/tester'] }) } },
      { value: { via_any: ['bash -c'] }, request: { tool: 'Bash', shell: analysed({ argv: ['rm', 'x'], via: ['sudo', 'bash -c'] }) } },
    ],
    badConfig: [
      { value: { program: '[oops' }, message: /unclosed "\["/ },
      { value: { paths_any: ['{a,b'] }, message: /unclosed "\{"/ },
    ],
  },
  { describe, it },
)

describe('command predicate: $SVC_PORTS in argument globs', () => {
  const v: CommandValue = { program: ['curl', 'lsof'], args_any: ['*:$SVC_PORTS', '*:$SVC_PORTS/*'] }
  const at = (ports: readonly number[] | undefined, req: EvalRequest) => command.gateKind.compile(v, where)(req, { ...ctx, ...(ports ? { svcPorts: ports } : {}) })

  it('binds to the ports of the context, 7878/7879 when it has none', () => {
    expect(at(undefined, request({ argv: ['curl', 'localhost:7879/v1'] }))).toBe('command `curl localhost:7879/v1`: argument localhost:7879/v1')
    expect(at(undefined, request({ argv: ['curl', 'localhost:9000/v1'] }))).toBeUndefined()
    expect(at([7878, 7879, 9000], request({ argv: ['lsof', '-i:9000'] }))).toBeDefined()
    expect(at([7878, 7879, 9000], request({ argv: ['lsof', '-i:19000'] }))).toBeUndefined()
    expect(at([7878, 7879, 9000], request({ argv: ['lsof', '-i:90001'] }))).toBeUndefined()
    // A second port set compiles its own globs; the first stays right.
    expect(at([3000], request({ argv: ['curl', 'localhost:9000/v1'] }))).toBeUndefined()
    expect(at([7878, 7879, 9000], request({ argv: ['curl', 'localhost:9000/v1'] }))).toBeDefined()
  })

  it('works in args_all and args_none too', () => {
    const all = command.gateKind.compile({ program: 'ssh', args_all: ['-L', '*:$SVC_PORTS'] }, where)
    expect(all(request({ argv: ['ssh', '-L', '1:127.0.0.1:9000', 'h'] }), { ...ctx, svcPorts: [9000] })).toBeDefined()
    const none = command.gateKind.compile({ program: 'curl', args_none: ['*:$SVC_PORTS'] }, where)
    expect(none(request({ argv: ['curl', 'x:9000'] }), { ...ctx, svcPorts: [9000] })).toBeUndefined()
    expect(none(request({ argv: ['curl', 'x:9000'] }), ctx)).toBeDefined()
  })

  it('refuses a misspelt binding at load', () => {
    expect(() => command.gateKind.compile({ program: 'curl', args_any: ['*:$SVC_PORT'] }, where)).toThrow('unknown binding "$SVC_PORT"')
  })
})
