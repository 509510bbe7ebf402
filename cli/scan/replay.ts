/**
 * Replays transcript calls through a policy engine (decide only: no ledger, no counters, no session) and tallies
 * what would have been denied, per gate and per pack. A call the harness's own parser refuses is reported as
 * unreadable with its reason, never counted as allowed.
 */
import { existsSync } from 'node:fs'
import { basename, sep } from 'node:path'
import type { Engine } from '../../core/index.ts'
import { harnessCall } from '../../plugins/rule-lifecycle/index.ts'
import { redactValue } from '../../redaction/index.ts'
import type { Transcript, UnreadableFile } from './transcripts.ts'

export interface ScanDenial {
  readonly harness: string
  readonly file: string
  readonly line: number
  readonly at?: string
  readonly cwd?: string
  readonly tool: string
  /** The redacted command, path, URL or input. */
  readonly subject: string
  readonly rule_id: string
  readonly pack: string
  readonly reason: string
  readonly nudge?: string
}

export interface ScanReport {
  /** Each directory looked in, whether it exists, and the transcripts and calls read from it. */
  readonly searched: readonly { harness: string; dir: string; found: boolean; transcripts: number; calls: number }[]
  readonly transcripts: number
  readonly calls: number
  readonly denied: readonly ScanDenial[]
  /** Calls a `monitor` gate would have recorded an alert for (allowed). */
  readonly alerts: number
  readonly per_gate: Readonly<Record<string, number>>
  readonly per_pack: Readonly<Record<string, number>>
  readonly unreadable: readonly { harness: string; file: string; line?: number; why: string }[]
}

/** What a call was about, redacted: its command, path, URL or pattern, else its input as JSON. */
export function callSubject(input: Readonly<Record<string, unknown>>, home: string): string {
  const redacted = redactValue(input, 'input', home).value as Record<string, unknown>
  for (const key of ['command', 'file_path', 'path', 'absolute_path', 'url', 'pattern', 'query']) {
    const v = redacted[key]
    if (typeof v === 'string') return v
    if (Array.isArray(v)) return v.map(String).join(' ')
  }
  return JSON.stringify(redacted)
}

/** The pack a gate comes from: its shipped file's name (`secrets`), else its layer's source (`user`, `per-repo:…`). */
function packOf(engine: Engine): (ruleId: string, source: string) => string {
  const files = new Map(engine.policy.allGates().map((g) => [g.id, g.layer === 'daemon' && g.source === 'daemon' ? basename(g.loc.file).replace(/\.ya?ml$/, '') : g.source]))
  return (ruleId, source) => files.get(ruleId) ?? source
}

const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1
}

export async function replay(
  engine: Engine,
  read: { transcripts: readonly Transcript[]; unreadable: readonly UnreadableFile[]; searched: readonly { harness: string; dir: string }[] },
  home: string,
): Promise<ScanReport> {
  const pack = packOf(engine)
  const denied: ScanDenial[] = []
  const perGate: Record<string, number> = {}
  const perPack: Record<string, number> = {}
  const unreadable: { harness: string; file: string; line?: number; why: string }[] = read.unreadable.map((u) => ({ harness: u.harness, file: u.path, why: u.why }))
  let calls = 0
  let alerts = 0
  for (const t of read.transcripts) {
    for (const u of t.unreadable) unreadable.push({ harness: t.harness, file: t.path, line: u.line, why: u.why })
    for (const c of t.calls) {
      let call: ReturnType<typeof harnessCall>
      try {
        call = harnessCall(engine.registry, t.harness, c.tool, { ...c.input }, c.cwd)
      } catch (err) {
        unreadable.push({ harness: t.harness, file: t.path, line: c.line, why: (err as Error).message })
        continue
      }
      calls++
      const { decision } = await engine.decide({ ...call, sessionId: 'scan' })
      if (decision.ledgerVerdict === 'monitor_alert') alerts++
      if (decision.verdict !== 'deny') continue
      const hit = decision.hits.find((h) => h.gateId === decision.ruleId)
      const p = pack(decision.ruleId, hit?.source ?? decision.stage)
      bump(perGate, decision.ruleId || '(core)')
      bump(perPack, p)
      denied.push({
        harness: t.harness,
        file: t.path,
        line: c.line,
        ...(c.at ? { at: c.at } : {}),
        ...(c.cwd ? { cwd: c.cwd } : {}),
        tool: c.tool,
        subject: callSubject(c.input, home),
        rule_id: decision.ruleId,
        pack: p,
        reason: decision.reason,
        ...(decision.nudge ? { nudge: decision.nudge } : {}),
      })
    }
  }
  const searched = read.searched.map((s) => {
    const mine = read.transcripts.filter((t) => t.harness === s.harness && t.path.startsWith(s.dir + sep))
    return { ...s, found: existsSync(s.dir), transcripts: mine.length, calls: mine.reduce((n, t) => n + t.calls.length, 0) }
  })
  return { searched, transcripts: read.transcripts.length, calls, denied, alerts, per_gate: perGate, per_pack: perPack, unreadable }
}
