/**
 * The command table from manifests: the CLI's own commands in their order, a plugin's declared commands placed
 * by `after`, clashes refused, nothing loaded to list them, and a plugin's command run through the real program.
 */
import { CommanderError } from 'commander'
import { describe, expect, it } from 'vitest'
import type { CommandDeclaration, CommandManifest } from '../../core/index.ts'
import { builtinPlugins } from '../../plugins/index.ts'
import { builtinCommands } from '../../plugins/commands.ts'
import { buildProgram } from '../main.ts'
import type { CliIo } from '../io.ts'
import { cliManifest, commands } from './index.ts'
import { commandTable } from './table.ts'

const declare = (name: string, after?: string, load: CommandDeclaration['load'] = () => import('../../test/fixtures/plugin-command/command.ts')): CommandDeclaration => ({
  name,
  summary: `the ${name} command`,
  ...(after ? { after } : {}),
  load,
})
const names = (manifests: readonly CommandManifest[]) => commandTable(manifests).map((e) => `${e.source}:${e.name}`)

function quietIo(env: NodeJS.ProcessEnv = {}): CliIo & { lines: string[] } {
  const lines: string[] = []
  return { lines, out: (t) => lines.push(t), err: (t) => lines.push(t), env, readStdin: async () => '', ask: async () => undefined, interactive: false }
}

describe('the command table', () => {
  it("is the CLI manifest, then the plugins' manifests (the built-in ones bring none yet, and match their plugins)", () => {
    expect(commands.map((e) => e.name)).toEqual(cliManifest.commands!.map((c) => c.name))
    expect(commands.every((e) => e.source === 'cli')).toBe(true)
    expect(builtinCommands).toEqual(builtinPlugins.filter((p) => (p.commands ?? []).length > 0).map((p) => ({ name: p.name, commands: p.commands })))
  })

  it("places a plugin's command after the one it names, in declaration order, else at the end", () => {
    const cli: CommandManifest = { name: 'cli', commands: [declare('status'), declare('ledger'), declare('mode')] }
    const plugin: CommandManifest = { name: 'feature:demo', commands: [declare('hello', 'ledger'), declare('bye', 'ledger'), declare('last')] }
    expect(names([cli, plugin])).toEqual(['cli:status', 'cli:ledger', 'feature:demo:hello', 'feature:demo:bye', 'cli:mode', 'feature:demo:last'])
  })

  it('refuses a name brought twice and an `after` that names no command before it', () => {
    const cli: CommandManifest = { name: 'cli', commands: [declare('status')] }
    expect(() => commandTable([cli, { name: 'feature:demo', commands: [declare('status')] }])).toThrow('feature:demo brings the command "status", which cli brings already')
    expect(() => commandTable([cli, { name: 'feature:demo', commands: [declare('hello', 'nothing')] }])).toThrow('follows "nothing"')
  })

  it('loads nothing to list, and checks what a command module makes', async () => {
    let loaded = 0
    const counted: CommandDeclaration['load'] = async () => {
      loaded++
      return { default: () => ({ not: 'a command' }) }
    }
    const [entry] = commandTable([{ name: 'feature:odd', commands: [declare('odd', undefined, counted)] }])
    expect(loaded).toBe(0)
    const make = await entry!.load()
    expect(loaded).toBe(1)
    expect(() => make(quietIo())).toThrow('feature:odd: the module of "odd" did not make a commander Command')
  })

  it("a plugin's command is listed in `svc --help` where it says, and runs with the CLI's io", async () => {
    const table = commandTable([cliManifest, { name: 'feature:demo', commands: [declare('hello', 'ledger')] }])
    const help = quietIo()
    const program = await buildProgram(help, ['--help'], table)
    await expect(program.parseAsync(['--help'], { from: 'user' })).rejects.toBeInstanceOf(CommanderError)
    const listed = help.lines
      .join('')
      .split('\n')
      .map((l) => /^ {2}(\S+)/.exec(l)?.[1])
      .filter((n) => n !== undefined && n !== 'help')
    expect(listed.slice(listed.indexOf('ledger'), listed.indexOf('ledger') + 3)).toEqual(['ledger', 'hello', 'export'])
    const io = quietIo({ SVC_HOME: '/tmp/demo' })
    await (await buildProgram(io, ['hello', 'fleet'], table)).parseAsync(['hello', 'fleet'], { from: 'user' })
    expect(io.lines).toEqual(['hello, fleet (SVC_HOME=/tmp/demo)'])
  })
})
