/**
 * The one redaction every surface uses (case bundles, `svc log`, dashboards, skills): deterministic, so the
 * same call always yields the same redacted text. It removes private key blocks, credentials in URLs, tokens
 * in query strings, Authorization headers and basic-auth options, known key formats, values of
 * `*_KEY`/`*_TOKEN`/`*_SECRET`/`*PASSWORD*` assignments and secret-named fields, and home-directory prefixes.
 */

/** What one redacted field had removed, by kind (sorted, unique). */
export interface RedactionChange {
  readonly field: string
  readonly kinds: readonly string[]
}

export interface Redacted<T> {
  readonly value: T
  readonly changes: readonly RedactionChange[]
}

/** Version of the rules below: bump when they change, since it changes bundle bytes. */
export const REDACTION_VERSION = 1
export const MASK = '[REDACTED]'

interface Rule {
  readonly kind: string
  readonly pattern: RegExp
  readonly replace: string | ((...m: string[]) => string)
}

const KNOWN_KEYS: readonly [string, RegExp][] = [
  ['aws_access_key', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g],
  ['github_token', /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})\b/g],
  ['slack_token', /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g],
  ['anthropic_key', /\bsk-ant-[A-Za-z0-9_-]{20,}/g],
  ['openai_key', /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/g],
  ['google_api_key', /\bAIza[0-9A-Za-z_-]{35}\b/g],
  ['stripe_key', /\b[rsp]k_(?:live|test)_[0-9A-Za-z]{16,}\b/g],
  ['npm_token', /\bnpm_[A-Za-z0-9]{36}\b/g],
  ['jwt', /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g],
]

// Names whose assigned value is a secret: *_KEY, *_TOKEN, *_SECRET, anything with PASSWORD (any case).
const SECRET_NAME = '[A-Za-z_][A-Za-z0-9_]*(?:_KEY|_TOKEN|_SECRET|_PASSWD)|[A-Za-z0-9_]*PASSWORD[A-Za-z0-9_]*|(?:API_?KEY|TOKEN|SECRET|PASSWD)'
const SECRET_FIELD = /(?:^|_|-)(?:key|token|secret|passwd|password|apikey|api_key|authorization|cookie|credentials?)$|password/i

const RULES: readonly Rule[] = [
  {
    kind: 'private_key',
    pattern: /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g,
    replace: (_m, label) => `-----BEGIN ${label}PRIVATE KEY-----${MASK}-----END ${label}PRIVATE KEY-----`,
  },
  { kind: 'url_credentials', pattern: /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:'"]*:[^\s/@'"]*@/gi, replace: `$1${MASK}@` },
  {
    kind: 'url_token',
    pattern:
      /([?&](?:access_token|refresh_token|id_token|token|api_key|apikey|key|secret|client_secret|password|passwd|pwd|sig|signature|auth|code|X-Amz-Signature|X-Amz-Credential)=)[^&\s#'"]+/gi,
    replace: `$1${MASK}`,
  },
  { kind: 'authorization', pattern: /\b((?:proxy-)?authorization\s*:\s*(?:(?:bearer|basic|token|bot|digest|negotiate)\s+)?)[^\s'"\\]+/gi, replace: `$1${MASK}` },
  { kind: 'basic_auth', pattern: /((?:^|\s)(?:-u|--user|--proxy-user)(?:\s+|=))([^\s:'"]+):[^\s'"]+/g, replace: `$1$2:${MASK}` },
  ...KNOWN_KEYS.map(([kind, pattern]): Rule => ({ kind: `key:${kind}`, pattern, replace: MASK })),
  {
    kind: 'secret_assignment',
    pattern: new RegExp(String.raw`\b((?:${SECRET_NAME})\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s;&|'"]+)`, 'gi'),
    replace: (_m, lhs, value) => `${lhs}${value.startsWith('"') ? `"${MASK}"` : value.startsWith("'") ? `'${MASK}'` : MASK}`,
  },
  { kind: 'secret_option', pattern: /(--(?:password|passwd|token|secret|api-key|apikey|access-token|client-secret)(?:=|\s+))("[^"]*"|'[^']*'|[^\s'"]+)/gi, replace: `$1${MASK}` },
]

/** Redacts one string; returns the text and the kinds of what was removed. */
export function redactText(text: string, home?: string): { text: string; kinds: string[] } {
  const kinds = new Set<string>()
  let out = text
  for (const rule of RULES) {
    const next = out.replace(rule.pattern, rule.replace as (...m: string[]) => string)
    if (next !== out) kinds.add(rule.kind)
    out = next
  }
  const homes = home && home !== '/' ? [home.replace(/\/+$/, '')] : []
  for (const prefix of homes) {
    const next = out
      .split(`${prefix}/`)
      .join('~/')
      .replace(new RegExp(`${escapeRegExp(prefix)}(?=$|[\\s'"])`, 'g'), '~')
    if (next !== out) kinds.add('home')
    out = next
  }
  const generic = out.replace(/(^|[\s'"=:(])\/(?:home|Users)\/[^/\s'"]+(?=\/|$|[\s'"])/g, '$1~')
  if (generic !== out) kinds.add('home')
  return { text: generic, kinds: [...kinds].sort() }
}

/**
 * Redacts every string in a JSON value (object keys stay); fields named like secrets lose their whole value.
 * `prefix` names the field path in the change list (e.g. `input`).
 */
export function redactValue<T>(value: T, prefix: string, home?: string): Redacted<T> {
  const changes: RedactionChange[] = []
  const walk = (v: unknown, path: string, key: string | undefined): unknown => {
    if (typeof v === 'string') {
      if (key !== undefined && SECRET_FIELD.test(key) && v !== '') {
        changes.push({ field: path, kinds: ['secret_field'] })
        return MASK
      }
      const r = redactText(v, home)
      if (r.kinds.length > 0) changes.push({ field: path, kinds: r.kinds })
      return r.text
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, `${path}[${i}]`, key))
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {}
      for (const k of Object.keys(v).sort()) out[k] = walk((v as Record<string, unknown>)[k], `${path}.${k}`, k)
      return out
    }
    return v
  }
  const redacted = walk(value, prefix, undefined) as T
  return { value: redacted, changes: changes.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0)) }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
