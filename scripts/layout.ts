/**
 * The layout table of docs/architecture.md, computed from the tree: lines per top-level folder and per
 * first-level subfolder, each with the one-line description kept in FOLDERS below.
 *
 *   node scripts/layout.ts           print the block
 *   node scripts/layout.ts --write   rewrite it in docs/architecture.md between the markers (npm run docs:layout)
 *
 * What counts: `.ts`, `.js` and `.sh` files, `*.test.ts` excluded (so `test/` counts its helpers, fixtures and
 * corpus tools only), except where COUNTED says otherwise (the YAML packs of `policies/`, the Markdown skill of
 * `skills/`). Hidden entries, symlinks, `docs/` and the top-level folders `.gitignore` names are skipped.
 * Every folder printed needs a description: a new folder without one fails (test/docs-layout.test.ts), so it
 * gets described when it lands. A described folder that does not exist is simply not printed.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url))
export const ARCHITECTURE_DOC = join(PROJECT_ROOT, 'docs', 'architecture.md')
export const BEGIN = '<!-- layout:begin -->'
export const END = '<!-- layout:end -->'

/** `docs/` is not source; top-level folders .gitignore names (node_modules, coverage, test-results) are not ours. */
function skipped(root: string): Set<string> {
  const names = new Set(['node_modules', 'docs'])
  let ignore = ''
  try {
    ignore = readFileSync(join(root, '.gitignore'), 'utf8')
  } catch {
    // no .gitignore: only the fixed names
  }
  for (const line of ignore.split('\n')) if (/^[\w.-]+\/?$/.test(line.trim())) names.add(line.trim().replace(/\/$/, ''))
  return names
}
const SOURCE = /\.(ts|js|sh)$/
const TEST = /\.test\.ts$/

/** Folders counted by other files than source: the shipped packs are YAML, the agent skill is Markdown. */
const COUNTED: Readonly<Record<string, RegExp>> = { 'policies/': /\.ya?ml$/, 'skills/': /\.md$/ }

/** Top-level folders shown as one row: their subfolders are summed, not listed. */
const SUMMED = new Set(['bench/', 'policies/', 'scripts/', 'skills/', 'test/', 'ledger-verify/', 'testing/'])

/** One line per folder, in the order printed (a folder missing here is printed after the others, and fails). */
export const FOLDERS: Readonly<Record<string, string>> = {
  'core/': 'the kernel a one-shot engine needs: hooks, plugin registry, engine, decision (deny-overrides), errors, types; no HTTP. `index.ts` is its public face',
  'core/engine/': 'the engine in named functions over one state: setup, decide, check, record, mode; the contract createEngine returns',
  'core/policy/': 'load, compile, evaluate (the one evaluator, with an optional trace), layers, the gate index, background loads (worker parse, sliced compile), the parse cache',
  'core/ledger/': 'signed append-only Merkle ledger (SQLite; commits on a writer thread), proofs, checkpoints.log, the start guard',
  'core/sessions/': 'session store and admission, creation limits, sessions from the ledger',
  'core/trust/': 'host keys, session certificates',
  'core/match/': 'globs, canonical paths, URLs, patches, `$SVC_PORTS`, canonical MCP tool names',
  'core/guardrail/': 'the guardrail seam: `llm_guardrail` parsing, the provider contract and registry, the round, the severity scale',
  'core/state/': 'state.db: gate counters, the sealed mode row, the managed mode floor',
  'daemon/':
    'the HTTP host of the engine and of the surfaces plugins bring: buildApp (never listens), start-up (the plugin list passed in), session renewal; `index.ts` is its public face',
  'daemon/server/': 'problem+json, JSON bodies, the browser guard, lazy schemas, background services',
  'daemon/routes/': "the daemon's own routes: health, mode, auth, gates/check, gates, sessions, ledger, hooks",
  'daemon/hook-protocol/': 'replay window, duplicate deliveries, outcome links, the serving session, hook coverage',
  'daemon/auth/': 'operator passwords (scrypt), tokens, the login throttle, the auth service',
  'daemon/read-models/': 'the read queries behind the ledger, gate and session views',
  'plugins/': 'engine plugins, one folder each, listed in `plugins/index.ts`',
  'plugins/gates/': 'leaf predicates of `when` blocks, one folder per kind (tool, command, command_regex, path, url, jsonpath, mcp, signal)',
  'plugins/normalise-tool-input/': 'the one pass that canonicalises tool-input paths, URLs and MCP names',
  'plugins/shell-analysis/': 'bash parsing into simple commands, signals, paths, URLs; inline code, scripts on disk, git and runner semantics',
  'plugins/operator-secrets/': 'feature: operator secrets the agent cannot rewrite (a changed auth.json is refused and recorded)',
  'plugins/snapshots/': 'feature: workspace snapshots before risky calls (a git object store in `$SVC_HOME/snapshots/`, ledgered `snapshot_taken`) and the restore `svc undo` runs',
  'plugins/mcp-pin/': "feature: MCP server pinning (preEvaluate tap, `mcp_pin` gate kind, `/v1/mcp/*` routes, the MCP proxy's routes)",
  'plugins/protected-set/': 'the protected set (its lists in `set.ts`) as the policy lists the packs name (`$SVC_SECRET_KEYS`, `$SVC_AUTORUN_FILES`, …)',
  'plugins/installer/': 'feature: hook installer (plan, diff, atomic apply, manifest, shim, sandbox facts and probe runner, `/v1/install/*` routes)',
  'plugins/guardrails/': 'feature: guardrail traces by ledger seq, `/v1/guardrails/*` and `/v1/llm/models` routes',
  'plugins/grants/': "feature: allow-once in the user's hands (the code in every deny, `/v1/grants` with host-key proof, the grant a decision carries)",
  'plugins/pack-choices/': "feature: the user's pack choices (`packs.json`) recorded as control leaves",
  'plugins/rule-lifecycle/': 'feature: stored calls (payloads.db), case bundles, validate/replay/apply/revert, gate fixtures',
  'plugins/dashboard/': 'feature: the web dashboard on its own port (login, CSRF, CSP, the forwarded API, the SSE feed); `web/` is its front end (Preact + htm, no build)',
  'plugins/policy-bundle/': 'feature: signed policy bundles (fetch, verify, activate), the managed file, `/v1/policy/bundle`',
  'plugins/otlp-export/': "feature: the ledger shipped to an OpenTelemetry collector (the daemon's export service on its own thread, cursor, records, shipper)",
  'plugins/hook-socket/': "feature: the hook routes on a Unix socket in a directory only a separated daemon's account can write (`SVC_HOOK_SOCKET`)",
  'plugins/witness/': "feature: C2SP witnessing (the daemon's witnessing service, the host log key, cosignatures, the tlog policy, per-witness state)",
  'harnesses/': 'one folder per harness, listed in `harnesses/index.ts`',
  'harnesses/claude-code/': 'Claude Code: payloads, answers, config locations, install plan, MCP configs, sandbox settings and probe, protected paths, hook switches',
  'harnesses/codex/': 'Codex CLI: the same, plus its tool names, `config.toml` hooks and the trust step (its app server)',
  'harnesses/gemini/': 'Gemini CLI: the same, with its native tool names mapped',
  'harnesses/cursor/': 'Cursor: the same, `failClosed` hooks and `sandbox.json`',
  'harnesses/copilot-cli/': 'GitHub Copilot CLI: the same, svc’s own `hooks/svc.json` and its `sandbox` settings',
  'harnesses/opencode/': 'OpenCode: the same, through an in-process plugin that calls the shim',
  'harnesses/kit/': 'wire-format helpers shared by harness folders (not a plugin, registers nothing)',
  'guardrail-providers/': 'one folder per vendor, listed in `guardrail-providers/index.ts` after the `llm_guardrail` evaluator kind they serve',
  'guardrail-providers/openai-moderation/': 'OpenAI moderation (`POST /v1/moderations`)',
  'guardrail-providers/llama-guard/': 'Llama Guard over an OpenAI-compatible chat endpoint (Ollama, vLLM)',
  'guardrail-providers/azure-content-safety/': 'Azure AI Content Safety text analysis',
  'guardrail-providers/kit/': 'what the vendors share: defineGuardrailProvider (failures abstain), the classification cache, the JSON POST',
  'ledger-verify/': 'offline ledger verification used by the CLI and benches',
  'harness-contract/':
    'the harness contract: defineHarness, the registry, hook inputs and answers, install plans, protected paths, the protected set list type, probes; what harness folders implement and the daemon, installer, MCP pinning, status and doctor read',
  'hook-key/': 'the per-install hook key and the MAC the shim and the MCP relay check every daemon answer with (a leaf: Node built-ins only)',
  'redaction/': 'the one redaction every surface uses (case bundles, OTLP export, `svc log`, `svc top`): a library any family may import through `index.ts`',
  'cli/': '`svc` (commander): the bin, the composition root (`cli/plugins.ts`) and every command',
  'cli/commands/': "one file per command, listed in the CLI's manifest (`cli/commands/index.ts`) and loaded lazily; the command table built from the manifests",
  'cli/daemon/': '`svc daemon` as a process: its log, host keys trusted from the environment, the warm-up after start, idle memory release, a corrupt database named at start',
  'cli/agent/': '`svc agent`: the session renewer and its desktop notifications',
  'cli/init/': '`svc init` and `--undo`: host facts and the signer tier picked, the daemon and renewer started, hooks after the diff, the live deny, the record undo reads',
  'cli/signer/': 'host signers (software, TOTP, OS keychain: macOS keychain, Secret Service, kernel keyring), minting, the QR code',
  'cli/service/': 'systemd user units and launchd agents',
  'cli/status/': 'what `svc status` and `svc doctor` collect, hook switches as the registered harnesses describe them',
  'cli/false-positive/': 'case directories, the agent skill, the upstream rules patch',
  'cli/policy/': '`svc policy test` and `lint`, bundle build, sign and verify, the read-only policy snapshot `explain` and `scan` decide over',
  'cli/scan/': '`svc scan`: the agents’ own transcripts found and replayed through the policy, the report',
  'cli/fleet/': '`svc fleet verify` over an OTLP archive, the witness report of `svc ledger verify`',
  'cli/mcp-proxy/': '`svc mcp-proxy`: the stdio relay, its daemon client, the traffic log',
  'cli/mcp-wrap/': '`svc mcp wrap` and `unwrap`: locate, plan and edit harness MCP entries',
  'cli/top/': '`svc top`, the terminal dashboard (ink)',
  'cli/hud/': '`svc hud`, the status line, and the snapshot `svc top` shares',
  'testing/': 'test kits: gate tester, provider tester, vendor server, ledger fixtures',
  'policies/': 'the built-in daemon-layer policy packs and their fixtures (lines of YAML)',
  'skills/': 'the harness-neutral false-positive agent skill (lines of Markdown)',
  'scripts/': 'maintenance: openapi.yaml, build info, fixtures from the corpus, this table',
  'bench/': 'benchmarks (`npm run bench:*`), one folder each, and their shared helpers',
  'test/': 'end-to-end and contract tests (real daemon, real CLI, real files); counted: helpers, fixtures and corpus tools',
}

export interface FolderLines {
  readonly path: string
  readonly lines: number
  readonly depth: 0 | 1
}

function visible(dir: string) {
  return readdirSync(dir, { withFileTypes: true }).filter((e) => !e.name.startsWith('.') && !e.isSymbolicLink())
}

function linesOf(text: string): number {
  if (text === '') return 0
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
}

/** Lines of the counted files under a folder, recursively. */
function countLines(dir: string, counted: RegExp): number {
  let total = 0
  for (const e of visible(dir)) {
    const path = join(dir, e.name)
    if (e.isDirectory()) total += countLines(path, counted)
    else if (e.isFile() && counted.test(e.name) && !TEST.test(e.name)) total += linesOf(readFileSync(path, 'utf8'))
  }
  return total
}

/** Every top-level folder, and the first-level subfolders of those not SUMMED, with their lines. */
export function measure(root: string = PROJECT_ROOT): FolderLines[] {
  const rows: FolderLines[] = []
  const skip = skipped(root)
  const top = visible(root)
    .filter((e) => e.isDirectory() && !skip.has(e.name))
    .map((e) => e.name)
  for (const name of top) {
    const key = `${name}/`
    const counted = COUNTED[key] ?? SOURCE
    rows.push({ path: key, lines: countLines(join(root, name), counted), depth: 0 })
    if (SUMMED.has(key)) continue
    for (const sub of visible(join(root, name))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)) {
      rows.push({ path: `${key}${sub}/`, lines: countLines(join(root, name, sub), counted), depth: 1 })
    }
  }
  return rows
}

const order = Object.keys(FOLDERS)
const rank = (path: string) => (order.includes(path) ? order.indexOf(path) : order.length)
const topOf = (path: string) => `${path.split('/')[0]}/`

/** Folders in the tree that FOLDERS does not describe. */
export function undescribed(rows: readonly FolderLines[]): string[] {
  return rows.filter((r) => FOLDERS[r.path] === undefined).map((r) => r.path)
}

/** The table's precision: to 50, or to 10 under 100. */
function rounded(lines: number): number {
  const step = lines < 100 ? 10 : 50
  return Math.round(lines / step) * step
}

const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')

/** The markdown block that goes between the markers (markers excluded). Throws when a folder has no description. */
export function layoutBlock(root: string = PROJECT_ROOT): string {
  const rows = measure(root)
  const missing = undescribed(rows)
  if (missing.length > 0) throw new Error(`scripts/layout.ts: no description for ${missing.join(', ')}: add a line to FOLDERS`)
  // Top-level folders in FOLDERS order, each followed by its subfolders in FOLDERS order (ties by name).
  const sorted = [...rows].sort((a, b) => {
    const ta = topOf(a.path),
      tb = topOf(b.path)
    if (ta !== tb) return rank(ta) - rank(tb) || (ta < tb ? -1 : 1)
    if (a.depth !== b.depth) return a.depth - b.depth
    return rank(a.path) - rank(b.path) || (a.path < b.path ? -1 : 1)
  })
  const total = rows.filter((r) => r.depth === 0 && !COUNTED[r.path]).reduce((n, r) => n + r.lines, 0)
  return [
    '<!-- Generated by scripts/layout.ts from the tree: run `npm run docs:layout` after moving or adding folders. -->',
    '',
    'Lines per folder: `.ts`, `.js` and `.sh` files without `*.test.ts` (so `test/` counts its helpers, fixtures and',
    'corpus tools only); `policies/` counts its YAML and `skills/` its Markdown. Subfolders are indented under their folder.',
    'Counts are rounded to the nearest 50 (under 100: to 10), so an everyday edit does not change the table.',
    '',
    '| folder | lines | what it holds |',
    '|---|--:|---|',
    ...sorted.map((r) => `| ${r.depth === 1 ? '&nbsp;&nbsp;' : ''}\`${r.path}\` | ${thousands(rounded(r.lines))} | ${FOLDERS[r.path]} |`),
    `| all source | ${thousands(rounded(total))} | the \`.ts\`, \`.js\` and \`.sh\` lines of every folder above (benchmarks and test helpers included, \`*.test.ts\` not) |`,
    '',
  ].join('\n')
}

/** The block docs/architecture.md holds now (between the markers), or undefined without markers. */
export function currentBlock(doc: string = readFileSync(ARCHITECTURE_DOC, 'utf8')): string | undefined {
  const begin = doc.indexOf(BEGIN)
  const end = doc.indexOf(END)
  if (begin < 0 || end < begin) return undefined
  return doc.slice(begin + BEGIN.length + 1, end)
}

/** docs/architecture.md with the block replaced by `block`. */
export function withBlock(doc: string, block: string): string {
  const begin = doc.indexOf(BEGIN)
  const end = doc.indexOf(END)
  if (begin < 0 || end < begin) throw new Error(`docs/architecture.md has no ${BEGIN} … ${END} markers`)
  return `${doc.slice(0, begin + BEGIN.length)}\n${block}${doc.slice(end)}`
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const block = layoutBlock()
  if (process.argv.includes('--write')) {
    const doc = readFileSync(ARCHITECTURE_DOC, 'utf8')
    const next = withBlock(doc, block)
    if (next !== doc) writeFileSync(ARCHITECTURE_DOC, next)
    console.log(next === doc ? 'docs/architecture.md: layout unchanged' : 'docs/architecture.md: layout written')
  } else {
    process.stdout.write(block)
  }
}

/** The project's Markdown documents, README.md first: what the docs tests read (links, policy examples). */
export function markdownDocuments(root = PROJECT_ROOT): string[] {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'))
  return ['README.md', ...docs.sort().map((f) => `docs/${f}`)]
}
