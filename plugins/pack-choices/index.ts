/**
 * The user's pack choices on the record: `svc policy packs enable|disable|severity` writes `$SVC_HOME/packs.json`,
 * which the policy re-reads within a second; this service watches the same file and appends a `config_changed`
 * control leaf for every pack whose choice changed (facts: setting `pack`, the pack, from, to), so turning a pack
 * off is as visible in `svc log --all` and the dashboard as a mode change. A choice made while the daemon was down
 * is recorded at its next start, against the choices the last start saw (kept beside the file).
 */
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { packChoices, writePrivateFile, type Engine, type EnginePlugin } from '../../core/index.ts'
import { service } from '../../daemon/index.ts'

type Choices = ReadonlyMap<string, string>
const SHIPPED = 'as shipped'

/** Every pack whose choice differs between `before` and `after`, with both choices. */
export function choiceChanges(before: Choices, after: Choices): { pack: string; from: string; to: string }[] {
  const packs = [...new Set([...before.keys(), ...after.keys()])].sort()
  return packs.flatMap((pack) => {
    const from = before.get(pack) ?? SHIPPED
    const to = after.get(pack) ?? SHIPPED
    return from === to ? [] : [{ pack, from, to }]
  })
}

function seen(home: string): Choices {
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(join(home, 'packs.recorded.json'), 'utf8')) as Record<string, string>))
  } catch {
    return new Map()
  }
}

/** Records what changed since the last look; returns the choices now on the record. */
async function record(engine: Engine, before: Choices): Promise<Choices> {
  const now = packChoices(engine.home)
  for (const c of choiceChanges(before, now)) {
    await engine.recordEvent('config_changed', { setting: 'pack', who: 'packs.json (svc policy packs)', ...c }, `pack ${c.pack}: ${c.from} -> ${c.to}`)
  }
  writePrivateFile(join(engine.home, 'packs.recorded.json'), `${JSON.stringify(Object.fromEntries(now))}\n`)
  return now
}

const mtimeOf = (path: string) => {
  try {
    return statSync(path).mtimeMs
  } catch {
    return 0
  }
}

const plugin: EnginePlugin = {
  name: 'feature:pack-choices',
  apply({ bring }) {
    bring(
      service('pack-choices', async ({ engine, log }) => {
        const file = join(engine.home, 'packs.json')
        let last = await record(engine, seen(engine.home))
        let mtime = mtimeOf(file)
        let busy = false
        const timer = setInterval(() => {
          const m = mtimeOf(file)
          if (m === mtime || busy) return
          mtime = m
          busy = true
          record(engine, last)
            .then((now) => {
              last = now
            })
            .catch((err: unknown) => log.error({ err }, 'could not record a pack choice'))
            .finally(() => {
              busy = false
            })
        }, 500)
        timer.unref()
        return { stop: () => clearInterval(timer) }
      }),
    )
  },
}

export default plugin
