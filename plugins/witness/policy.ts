/**
 * C2SP tlog-policy (c2sp.org/tlog-policy): `log <vkey> [url]`, `witness <name> <vkey> [url]`,
 * `group <name> all|any|<k> <member>...`, exactly one `quorum <name>|none`; `#` comments; names must be
 * defined before use and listed at most once per group. Witness URLs are tlog-witness submission prefixes.
 */
import { parseWitnessVkey, type WitnessKey } from './cosignature.ts'

export interface PolicyWitness extends WitnessKey {
  /** The policy's name for the witness (the key name is in `name`). */
  readonly id: string
  readonly url?: string
}

interface Group {
  readonly k: number
  readonly members: readonly string[]
}

export interface WitnessPolicy {
  readonly witnesses: readonly PolicyWitness[]
  /** True when the set of witness ids that cosigned satisfies the quorum. */
  satisfied(cosigned: ReadonlySet<string>): boolean
  readonly quorum: string
}

/** Parses a policy file's text; throws naming the line of any error. */
export function parseWitnessPolicy(text: string): WitnessPolicy {
  const witnesses = new Map<string, PolicyWitness>()
  const groups = new Map<string, Group>()
  let quorum: string | undefined
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    const f = line.split(/[ \t]+/)
    const where = `policy line ${i + 1}`
    const defined = (n: string) => n === 'none' || witnesses.has(n) || groups.has(n)
    if (f[0] === 'log') return
    if (f[0] === 'witness') {
      if (f.length < 3 || f.length > 4) throw new Error(`${where}: witness <name> <vkey> [url]`)
      if (defined(f[1]!)) throw new Error(`${where}: name ${f[1]} is already defined`)
      let key: WitnessKey
      try {
        key = parseWitnessVkey(f[2]!)
      } catch (err) {
        throw new Error(`${where}: ${(err as Error).message}`)
      }
      if ([...witnesses.values()].some((w) => w.publicKey.equals(key.publicKey))) throw new Error(`${where}: duplicate witness key`)
      witnesses.set(f[1]!, { ...key, id: f[1]!, ...(f[3] ? { url: f[3] } : {}) })
    } else if (f[0] === 'group') {
      const members = f.slice(3)
      if (f.length < 4 || defined(f[1]!)) throw new Error(`${where}: group <new name> all|any|<k> <member>...`)
      for (const m of members) if (m === 'none' || !defined(m)) throw new Error(`${where}: group member ${m} is not defined above`)
      if (new Set(members).size !== members.length) throw new Error(`${where}: a member is listed twice`)
      const k = f[2] === 'all' ? members.length : f[2] === 'any' ? 1 : /^[1-9][0-9]*$/.test(f[2]!) ? Number(f[2]) : NaN
      if (!(k >= 1 && k <= members.length)) throw new Error(`${where}: threshold must be all, any or 1..${members.length}`)
      groups.set(f[1]!, { k, members })
    } else if (f[0] === 'quorum') {
      if (quorum !== undefined) throw new Error(`${where}: a second quorum line`)
      if (f.length !== 2 || !defined(f[1]!)) throw new Error(`${where}: quorum must name a witness or group defined above (or none)`)
      quorum = f[1]!
    } else throw new Error(`${where}: unknown keyword ${f[0]}`)
  })
  if (quorum === undefined) throw new Error('policy has no quorum line')
  const q = quorum
  const holds = (name: string, cosigned: ReadonlySet<string>): boolean => {
    if (name === 'none') return true
    const g = groups.get(name)
    if (!g) return cosigned.has(name)
    return g.members.filter((m) => holds(m, cosigned)).length >= g.k
  }
  return { witnesses: [...witnesses.values()], quorum: q, satisfied: (cosigned) => holds(q, cosigned) }
}
