/**
 * The CLI's command table, built from manifests: the CLI's own (cli/commands/index.ts) and those of the plugins
 * that bring commands (plugins/commands.ts). Declarations are static, so `svc --help` lists every command
 * without loading one; a command's module loads when it is invoked, and its factory's product is checked here,
 * since the core's declaration (core/plugin.ts) does not name commander.
 */
import { Command } from 'commander'
import type { CommandManifest } from '../../core/index.ts'
import type { CliIo } from '../io.ts'

export interface CommandEntry {
  readonly name: string
  /** The command's description, shown by `svc --help` (test/cli-basics.test.ts checks it matches the command's own). */
  readonly summary: string
  /** Who brings it: `cli` or a plugin's name. */
  readonly source: string
  load(): Promise<(io: CliIo) => Command>
}

/**
 * Every command of the manifests, in help order: each manifest's commands in their order, one with `after` right
 * behind that command (and behind the others that follow it already). A name brought twice, or an `after` naming
 * no command declared before it, is refused: the table is the CLI's one list.
 */
export function commandTable(manifests: readonly CommandManifest[]): CommandEntry[] {
  const table: (CommandEntry & { readonly after?: string })[] = []
  for (const manifest of manifests) {
    for (const declared of manifest.commands ?? []) {
      const clash = table.find((e) => e.name === declared.name)
      if (clash) throw new Error(`${manifest.name} brings the command "${declared.name}", which ${clash.source} brings already`)
      let at = table.length
      if (declared.after !== undefined) {
        at = table.findIndex((e) => e.name === declared.after) + 1
        if (at === 0) throw new Error(`${manifest.name}: the command "${declared.name}" follows "${declared.after}", which no manifest before it brings`)
        while (at < table.length && table[at]!.after === declared.after) at++
      }
      const source = manifest.name
      table.splice(at, 0, {
        name: declared.name,
        summary: declared.summary,
        source,
        after: declared.after,
        async load() {
          const make = (await declared.load()).default
          return (io) => {
            const command = make(io)
            if (!(command instanceof Command)) throw new Error(`${source}: the module of "${declared.name}" did not make a commander Command`)
            return command
          }
        },
      })
    }
  }
  return table
}
