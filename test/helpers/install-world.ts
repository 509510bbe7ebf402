/**
 * A throwaway world for install tests: a home seeded with the harnesses' sample configs (each definition's
 * `samples`, files in its folder), an svc home and a repository, and the install request over them.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { HarnessDefinition } from '../../harness-contract/index.ts'
import type { InstallRequest } from '../../plugins/installer/plan.ts'

export interface InstallWorld {
  readonly root: string
  readonly home: string
  readonly svcHome: string
  readonly repo: string
  /** A command-transport, fail-closed, user-scope request for `harnesses` (overridable). */
  request(over?: Partial<InstallRequest>): InstallRequest
  /** The text of a harness's sample config (`.gemini/settings.json`). */
  sample(h: HarnessDefinition, path: string): string
  /** Writes a file (and its directories). */
  write(path: string, text: string): void
  /** The content of each path, or null when absent. */
  snapshot(paths: readonly string[]): Record<string, string | null>
  remove(): void
}

export function installWorld(harnesses: readonly HarnessDefinition[]): InstallWorld {
  const root = mkdtempSync(join(tmpdir(), 'svc-install-'))
  const home = join(root, 'home')
  const svcHome = join(root, 'svc')
  const repo = join(root, 'repo')
  mkdirSync(home, { recursive: true })
  mkdirSync(repo, { recursive: true })
  for (const h of harnesses) {
    for (const [path, file] of Object.entries(h.samples ?? {})) {
      mkdirSync(dirname(join(home, path)), { recursive: true })
      cpSync(file, join(home, path))
    }
  }
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, text)
  }
  return {
    root,
    home,
    svcHome,
    repo,
    request: (over = {}) => ({ harnesses, scope: 'user', env: { home, env: {} }, svcHome, daemonUrl: 'http://127.0.0.1:7878', failOpen: false, transport: 'command', ...over }),
    sample: (h, path) => readFileSync(h.samples![path]!, 'utf8'),
    write,
    snapshot: (paths) => Object.fromEntries(paths.map((p) => [p, existsSync(p) ? readFileSync(p, 'utf8') : null])),
    remove: () => rmSync(root, { recursive: true, force: true }),
  }
}
