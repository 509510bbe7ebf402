/**
 * The CLI commands the built-in plugins bring, as static manifests: what `svc` reads to list them in
 * `svc --help` without loading any plugin's code (importing plugins/index.ts loads every plugin and the kernel).
 * A plugin that brings a command declares it in a module of its folder that imports nothing at run time,
 * e.g. `plugins/<name>/commands.ts`:
 *
 *   export const commands: readonly CommandDeclaration[] = [{ name, summary, after?, load: () => import('./command.ts') }]
 *
 * sets it as the `commands` of its plugin object, and is listed here with one line
 * (`{ name: '<plugin name>', commands }`); test/cli-basics.test.ts checks this list matches the plugins' own
 * declarations. The command module's default export takes the CLI's io (core `CommandIo`) and returns a commander
 * Command; it may not import cli/. None of the built-in plugins brings one today: their commands lean on the
 * CLI's daemon client, prompts and signers, or compose several plugins, so they are the CLI's
 * (cli/commands/index.ts).
 */
import type { CommandManifest } from '../core/index.ts'

export const builtinCommands: readonly CommandManifest[] = []
