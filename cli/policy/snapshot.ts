/**
 * The policy of a `$SVC_HOME` as a throwaway engine: its policy files, registry rules, active bundle and seal key
 * are copied into a temp home (so sealed disables still verify), the engine runs there, and closing removes it.
 * `svc explain` and `svc scan` decide through it: they read `$SVC_HOME` and never write it (no ledger, no
 * state.db, no seal key created there). The daemon's mode is read, not opened, and set on the copy.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import pino from 'pino'
import { createEngine, type Engine } from '../../core/index.ts'
import { SHIPPED_POLICIES_DIR } from '../paths.ts'
import { allPlugins } from '../plugins.ts'

const FILES = ['policy.yaml', 'group-policy.yaml', 'user-policy.yaml', 'seal.key']

export interface PolicySnapshot {
  readonly engine: Engine
  close(): Promise<void>
}

/** The mode state.db records (`monitor` or `firewall`), read without opening it for writing; firewall when unreadable. */
function recordedMode(home: string): 'monitor' | 'firewall' {
  const path = join(home, 'state.db')
  if (!existsSync(path)) return 'firewall'
  try {
    const db = new DatabaseSync(path, { readOnly: true })
    try {
      const row = db.prepare("SELECT value FROM settings WHERE key = 'mode'").get() as { value?: string } | undefined
      return row?.value === 'monitor' ? 'monitor' : 'firewall'
    } finally {
      db.close()
    }
  } catch {
    return 'firewall'
  }
}

function copyPolicy(home: string, into: string): void {
  mkdirSync(into, { recursive: true, mode: 0o700 })
  for (const f of FILES) if (existsSync(join(home, f))) copyFileSync(join(home, f), join(into, f))
  if (existsSync(join(home, 'registry'))) cpSync(join(home, 'registry'), join(into, 'registry'), { recursive: true })
  let revision: string | undefined
  try {
    revision = realpathSync(join(home, 'bundles', 'active'))
  } catch {
    revision = undefined
  }
  if (revision) {
    const copy = join(into, 'bundles', basename(revision))
    cpSync(revision, copy, { recursive: true })
    symlinkSync(copy, join(into, 'bundles', 'active'))
  }
}

/** An engine over `home`'s policy in a temp copy; `keepMode` applies the daemon's recorded mode (explain), else firewall (scan). */
export async function policySnapshot(home: string, opts: { userHome: string; svcPorts?: readonly number[]; keepMode: boolean }): Promise<PolicySnapshot> {
  const root = mkdtempSync(join(tmpdir(), 'svc-snapshot-'))
  try {
    const copy = join(root, 'svc')
    copyPolicy(home, copy)
    const engine = await createEngine({
      plugins: allPlugins,
      home: copy,
      policiesDir: SHIPPED_POLICIES_DIR,
      userHome: opts.userHome,
      log: pino({ level: 'silent' }),
      ...(opts.svcPorts ? { svcPorts: opts.svcPorts } : {}),
    })
    if (opts.keepMode && recordedMode(home) === 'monitor') await engine.setMode('monitor', 'snapshot of the daemon mode')
    return {
      engine,
      async close() {
        try {
          await engine.close()
        } finally {
          rmSync(root, { recursive: true, force: true })
        }
      },
    }
  } catch (err) {
    rmSync(root, { recursive: true, force: true })
    throw err
  }
}
