/** `svc doctor --probe` for Codex: the attacks run through `codex sandbox` (its own entry point for a command in its sandbox). */
import { spawnSync } from 'node:child_process'
import type { ProbeResult, ProbeTargets } from '../../harness-contract/index.ts'
import { onPath, probeCommands } from '../kit/index.ts'

export function probeCodex(t: ProbeTargets, env: Readonly<Record<string, string | undefined>>): ProbeResult[] {
  const codex = onPath('codex', env)
  if (!codex) return [{ harness: 'codex', probe: 'all', outcome: 'not-probed', detail: 'the codex binary is not on PATH, so `codex sandbox` cannot run the probes' }]
  const run = (command: string) => spawnSync(codex, ['sandbox', '--', 'bash', '-c', command], { cwd: t.cwd, env, encoding: 'utf8', timeout: 30_000 })
  const control = run('true')
  if (control.status !== 0)
    return [
      {
        harness: 'codex',
        probe: 'all',
        outcome: 'not-probed',
        detail: `\`codex sandbox\` could not run a harmless command: ${`${control.stdout ?? ''}${control.stderr ?? ''}`.trim().split('\n').slice(-1)[0]}`,
      },
    ]
  return probeCommands(t).map(({ probe, command, reads }) => {
    const res = run(command)
    const detail = `${res.stdout ?? ''}${res.stderr ?? ''}`.trim().split('\n').slice(-1)[0] ?? ''
    if (res.status !== 0) return { harness: 'codex', probe, outcome: 'blocked', detail }
    // Codex's sandbox lets commands read the whole disk: the shim's daemon authentication carries this part.
    return { harness: 'codex', probe, outcome: 'reached', detail: reads ? 'known: Codex does not hide $SVC_HOME from reads' : detail, ...(reads ? { residual: true } : {}) }
  })
}
