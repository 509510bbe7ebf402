/**
 * `svc doctor --probe`: runs the attacks inside each harness's own sandbox, built from the configuration svc wrote,
 * through the harness's `sandboxProbe` (HarnessDefinition); a harness without one is reported as not probed. Each
 * probe must FAIL inside for the layer to hold.
 */
import { join } from 'node:path'
import type { HarnessDefinition, HarnessEnv, ProbeResult } from '../../harness-contract/index.ts'
import type { Manifest } from './manifest.ts'

export type { ProbeResult } from '../../harness-contract/index.ts'

export interface ProbeRequest {
  /** The registered harnesses, in registration order. */
  readonly harnesses: readonly HarnessDefinition[]
  /** Harnesses with svc hooks or sandbox settings (status's `sandbox` list), in its order. */
  readonly present: readonly string[]
  readonly manifest: Manifest
  /** The user's files as the harnesses find them. */
  readonly env: HarnessEnv
  readonly svcHome: string
  readonly port: number
  readonly cwd: string
  /** The environment the probes run with (PATH). */
  readonly processEnv: Readonly<Record<string, string | undefined>>
}

/** The probes of every present harness: those with a way in first (in registration order), then the others. */
export function sandboxProbes(req: ProbeRequest): ProbeResult[] {
  const probed = req.harnesses.filter((h) => h.sandboxProbe && req.present.includes(h.id))
  const out: ProbeResult[] = []
  for (const h of probed) {
    const hookConfig = h.configLocations(req.env).find((l) => l.scope === 'user' && l.purpose === 'hooks')?.path ?? req.env.home
    const targets = { home: req.env.home, svcHome: req.svcHome, secretFile: join(req.svcHome, 'hook.key'), hookConfig, port: req.port, cwd: req.cwd }
    out.push(...h.sandboxProbe!(targets, sandboxFilesOf(req.manifest, h.id), req.processEnv))
  }
  for (const id of req.present.filter((id) => !probed.some((h) => h.id === id))) {
    out.push({ harness: id, probe: 'all', outcome: 'not-probed', detail: 'the harness offers no command that runs a probe inside its sandbox' })
  }
  return out
}

/** The files svc wrote a harness's sandbox settings into. */
function sandboxFilesOf(manifest: Manifest, harness: string): string[] {
  return Object.entries(manifest.files)
    .filter(([, record]) => record.entries.some((e) => e.harness === harness && e.layer === 'sandbox'))
    .map(([file]) => file)
}
