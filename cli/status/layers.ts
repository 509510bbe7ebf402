/**
 * The two layers per harness as `svc status` tells them (issue 27): whether the harness's own sandbox is on, what
 * it covers as svc configured it (its definition's `sandboxCovers`), what stays open to a command the gate misses
 * (everything when the sandbox is off or changed: "degraded"), and the hosts the user let commands reach.
 */
import { SANDBOX_COVERS, type HarnessDefinition, type SandboxCover } from '../../harness-contract/index.ts'
import type { Manifest } from '../../plugins/installer/index.ts'

export interface SandboxLayer {
  /** `full`: the sandbox is on as svc wrote it; `degraded`: off or changed, the gate alone stands for what is open. */
  readonly layers: 'full' | 'degraded'
  readonly covers: readonly string[]
  /** What a command the gate misses can still do. */
  readonly open: readonly string[]
  /** Hosts sandboxed commands may reach (and send data to): the trade-off of `--allow-domains`. */
  readonly allowedDomains: readonly string[]
}

const ALL = Object.keys(SANDBOX_COVERS) as SandboxCover[]

/** The allowed hosts svc wrote for `harness` (the sandbox entries at a `…allowedDomains` pointer). */
function allowedDomainsOf(manifest: Manifest | undefined, harness: string): string[] {
  const out = new Set<string>()
  for (const record of Object.values(manifest?.files ?? {}))
    for (const e of record.entries)
      if (e.harness === harness && e.layer === 'sandbox' && e.format === 'jsonc' && e.pointer.at(-1) === 'allowedDomains' && typeof e.value === 'string') out.add(e.value)
  return [...out]
}

export function sandboxLayer(state: 'on' | 'degraded' | 'off', def: HarnessDefinition | undefined, manifest: Manifest | undefined): SandboxLayer {
  const held = state === 'on' ? ALL.filter((c) => def?.sandboxCovers?.[c]) : []
  const covers = held.map((c) => SANDBOX_COVERS[c].replace(/^(reading|writing|reaching|killing)/, (v) => `no ${v}`))
  const open = ALL.filter((c) => !held.includes(c)).map((c) => SANDBOX_COVERS[c])
  return { layers: state === 'on' && open.length === 0 ? 'full' : 'degraded', covers, open, allowedDomains: state === 'off' ? [] : allowedDomainsOf(manifest, def?.id ?? '') }
}
