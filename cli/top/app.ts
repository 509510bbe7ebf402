/**
 * `svc top`, the terminal dashboard: five views (decisions live, gates, sessions, MCP pins, ledger), a header
 * with the daemon's state (the same snapshot as `svc hud`), a footer with the keys of the current view. Keys:
 * 1-5 / Tab switch views, ↑↓ (j/k) select, Enter opens a decision, / filters, v cycles the verdict filter,
 * f starts a false-positive case from a deny, a accepts a waiting MCP pin (operator password asked, hidden),
 * Esc goes back, q quits. Built with createElement: Node strips types, it does not compile JSX.
 */
import { Box, Text, useApp, useInput, useWindowSize } from 'ink'
import { createElement as h, useEffect, useRef, useState, type ReactNode } from 'react'
import { daemonSnapshot } from '../hud/snapshot.ts'
import { statusLine } from '../hud/status-line.ts'
import type { LedgerFilter } from '../ledger-filter.ts'
import { newestEntries, type LedgerRecord } from '../ledger-stream.ts'
import { inert } from '../terminal-text.ts'
import { acceptPin, login, operatorCredentialsInEnv, startCase } from './actions.ts'
import { decisionDetailRows, type GuardrailTrace } from './decision-detail.ts'
import { decisionRows, filterRows, gateRows, ledgerRows, pinRows, sessionRows, type Gate, type Pin, type Row, type SessionView } from './rows.ts'
import { get, useDecisions, usePoll } from './use-daemon.ts'

export interface TopProps {
  readonly url: string
  readonly env: NodeJS.ProcessEnv
  /** The user's home (redaction of home-directory prefixes). */
  readonly userHome: string
  /** $SVC_HOME: false-positive cases are written under its cases/ folder. */
  readonly svcHome: string
  readonly filter: LedgerFilter
  readonly intervalMs?: number
}

const VIEWS = ['decisions', 'gates', 'sessions', 'pins', 'ledger'] as const
type View = (typeof VIEWS)[number]
const TITLES: Record<View, string> = { decisions: 'Decisions', gates: 'Gates', sessions: 'Sessions', pins: 'MCP pins', ledger: 'Ledger' }
const VERDICT_CYCLE = [undefined, 'deny', 'monitor_alert', 'allow'] as const

type Editing = { kind: 'filter'; value: string } | { kind: 'password'; value: string; submit: (password: string) => Promise<void> }

const KEYS: Record<View | 'detail', string> = {
  decisions: '↑↓ select  Enter open  f false-positive case  v verdict  / filter',
  gates: '↑↓ select  / filter',
  sessions: '↑↓ select  / filter',
  pins: '↑↓ select  a accept pin (operator)  / filter',
  ledger: '↑↓ select  Enter open  / filter',
  detail: 'f false-positive case  Esc back',
}

interface SessionData {
  sessions: SessionView[]
  counts: Map<string, { allow: number; deny: number; monitor_alert: number }>
}

export function TopApp(props: TopProps): ReactNode {
  const { url, env, userHome, svcHome } = props
  const interval = props.intervalMs ?? 1000
  const { exit } = useApp()
  const { rows: height } = useWindowSize()
  const [view, setView] = useState<View>('decisions')
  const [selected, setSelected] = useState<Record<View, number>>({ decisions: 0, gates: 0, sessions: 0, pins: 0, ledger: 0 })
  const [verdict, setVerdict] = useState<string | undefined>(props.filter.verdict)
  const [text, setText] = useState('')
  const [editing, setEditing] = useState<Editing | undefined>()
  const [detail, setDetail] = useState<LedgerRecord | undefined>()
  const [guardrail, setGuardrail] = useState<GuardrailTrace | undefined>()
  const [message, setMessage] = useState<{ lines: string[]; error?: boolean } | undefined>()
  const token = useRef<string | undefined>(undefined)
  const editingRef = useRef<Editing | undefined>(undefined)
  const startEditing = (e: Editing) => {
    editingRef.current = e
    setEditing(e)
  }

  const decisions = useDecisions(url, { ...props.filter, verdict: verdict ?? props.filter.verdict }, interval)
  const snap = usePoll(() => daemonSnapshot(url, 1500), 2 * interval, [url])
  const gates = usePoll(get<{ gates: Gate[] }>(url, '/v1/gates'), 5 * interval, [url], view === 'gates')
  const sessions = usePoll(
    async (): Promise<SessionData> => {
      const [list, insights] = await Promise.all([
        get<{ sessions: SessionView[] }>(url, '/v1/sessions?limit=100')(),
        get<{ sessions: { session_id: string; counts: { allow: number; deny: number; monitor_alert: number } }[] }>(url, '/v1/sessions/insights')(),
      ])
      return { sessions: list.sessions, counts: new Map(insights.sessions.map((s) => [s.session_id, s.counts])) }
    },
    5 * interval,
    [url],
    view === 'sessions',
  )
  const pins = usePoll(get<{ servers: Pin[] }>(url, '/v1/mcp/pins'), 2 * interval, [url], view === 'pins')
  const root = usePoll(get<{ tree_size: number; root_hex: string; signer: string; origin: string }>(url, '/v1/ledger/root'), 2 * interval, [url], view === 'ledger')
  const ledger = usePoll(() => newestEntries(url, { all: true }, 100), 2 * interval, [url], view === 'ledger')

  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the opened decision's seq, so a re-polled copy of the same decision does not fetch its trace again
  useEffect(() => {
    setGuardrail(undefined)
    if (!detail) return
    get<GuardrailTrace>(url, `/v1/guardrails/traces/${detail.entry.seq}`)().then(setGuardrail, () => undefined)
  }, [detail?.entry.seq])

  const allRows: Record<View, Row[]> = {
    decisions: decisionRows(decisions.records, userHome),
    gates: gateRows(gates.data?.gates ?? [], userHome),
    sessions: sessionRows(sessions.data?.sessions ?? [], sessions.data?.counts ?? new Map()),
    pins: pinRows(pins.data?.servers ?? []),
    ledger: ledgerRows(ledger.data?.records ?? [], userHome),
  }
  const rows = filterRows(allRows[view], text)
  const index = Math.min(selected[view], Math.max(0, rows.length - 1))
  const current = rows[index]
  const recordOf = (key: string | undefined) => [...decisions.records, ...(ledger.data?.records ?? [])].find((r) => String(r.entry.seq) === key)

  const run = (what: string, action: () => Promise<string[]>) => {
    setMessage({ lines: [`${what}…`] })
    action().then(
      (lines) => setMessage({ lines }),
      (err: Error) => setMessage({ lines: [`${what} failed: ${err.message}`], error: true }),
    )
  }
  const asOperator = (what: string, action: (token: string) => Promise<string[]>) => {
    const go = (t: string) => run(what, () => action(t))
    if (token.current) return go(token.current)
    const withToken = async (password?: string) => {
      token.current = await login(url, env, password)
      go(token.current)
    }
    if (operatorCredentialsInEnv(env)) return void withToken().catch((err: Error) => setMessage({ lines: [`operator login failed: ${err.message}`], error: true }))
    startEditing({ kind: 'password', value: '', submit: async (password) => withToken(password) })
  }
  const falsePositive = (r: LedgerRecord | undefined) => {
    if (r?.entry.leaf.type !== 'decision') return
    if (r.entry.leaf.verdict !== 'deny' && r.entry.leaf.verdict !== 'monitor_alert')
      return setMessage({ lines: [`decision ${r.entry.seq} was not denied: there is no false positive to report`], error: true })
    run(`writing the false-positive case of ${r.entry.seq}`, () => startCase(url, env, svcHome, r.entry.seq))
  }

  useInput((input, key) => {
    if (editingRef.current) return editKey(input, key)
    if (input === 'q' || (key.ctrl && input === 'c')) return exit()
    if (key.escape) {
      if (detail) return setDetail(undefined)
      if (message) return setMessage(undefined)
      return setText('')
    }
    if (detail) {
      if (input === 'f') falsePositive(detail)
      return
    }
    const n = Number(input)
    if (n >= 1 && n <= VIEWS.length) return setView(VIEWS[n - 1]!)
    if (key.tab || key.rightArrow || key.leftArrow) {
      const step = key.shift || key.leftArrow ? VIEWS.length - 1 : 1
      return setView(VIEWS[(VIEWS.indexOf(view) + step) % VIEWS.length]!)
    }
    const move = (delta: number) => setSelected((s) => ({ ...s, [view]: Math.max(0, Math.min(rows.length - 1, index + delta)) }))
    if (key.upArrow || input === 'k') return move(-1)
    if (key.downArrow || input === 'j') return move(1)
    if (key.pageUp) return move(-10)
    if (key.pageDown) return move(10)
    if (input === '/') return startEditing({ kind: 'filter', value: text })
    if (key.return && (view === 'decisions' || view === 'ledger')) {
      const r = recordOf(current?.key)
      if (r?.entry.leaf.type === 'decision') setDetail(r)
      return
    }
    if (input === 'v' && view === 'decisions') {
      const i = VERDICT_CYCLE.indexOf(verdict as (typeof VERDICT_CYCLE)[number])
      return setVerdict(VERDICT_CYCLE[(i + 1) % VERDICT_CYCLE.length])
    }
    if (input === 'f' && view === 'decisions') return falsePositive(recordOf(current?.key))
    if (input === 'a' && view === 'pins') {
      const pin = pins.data?.servers.find((p) => p.server === current?.key)
      if (!pin?.pending_fingerprint) return setMessage({ lines: ['nothing waiting to be accepted for this server'], error: true })
      asOperator(`accepting ${pin.server} at ${pin.pending_fingerprint}`, async (t) => [await acceptPin(url, t, pin)])
    }
  })

  function editKey(input: string, key: { return: boolean; escape: boolean; backspace: boolean; delete: boolean; ctrl: boolean }) {
    // Keys can arrive faster than renders: the typed value lives in a ref, never in a stale closure.
    const e = editingRef.current
    if (!e) return
    const set = (next: Editing | undefined) => {
      editingRef.current = next
      setEditing(next)
    }
    if (key.escape || (key.ctrl && input === 'c')) return set(undefined)
    if (key.return) {
      set(undefined)
      if (e.kind === 'filter') return setText(e.value)
      return void e.submit(e.value).catch((err: Error) => setMessage({ lines: [`operator login failed: ${err.message}`], error: true }))
    }
    if (key.backspace || key.delete) return set({ ...e, value: e.value.slice(0, -1) })
    if (!key.ctrl && input) set({ ...e, value: e.value + input })
  }

  const header = snap.data ? statusLine(snap.data, url, false) : `svc: connecting to ${inert(url)}…`
  const headerColour = snap.data && !snap.data.reachable ? 'red' : undefined
  const tabs = VIEWS.map((v, i) => h(Text, { key: v, inverse: v === view && !detail }, ` ${i + 1} ${TITLES[v]} `))
  const filterNote = [verdict && view === 'decisions' ? `verdict=${verdict}` : '', text ? `filter "${inert(text)}"` : ''].filter(Boolean).join(' ')
  const polled: Record<Exclude<View, 'decisions'>, { error?: string }> = { gates, sessions, pins, ledger }
  const error = view === 'decisions' ? decisions.error : polled[view].error
  const subheader =
    view === 'ledger' && root.data
      ? `tree size ${root.data.tree_size}  root ${inert(root.data.root_hex)}  signer ${inert(root.data.signer)}  origin ${inert(root.data.origin)}`
      : ' '
  const bodyHeight = Math.max(3, (height || 24) - 7 - (message ? message.lines.length + 1 : 0))
  const body = detail ? decisionDetailRows(detail, userHome, guardrail) : rows
  const start = detail ? 0 : Math.max(0, Math.min(index - Math.floor(bodyHeight / 2), rows.length - bodyHeight))
  const visible = body.slice(start, start + bodyHeight)

  return h(
    Box,
    { flexDirection: 'column', height: height || 24 },
    h(Text, { color: headerColour, wrap: 'truncate' }, header),
    h(Box, null, ...tabs, h(Text, { color: 'gray' }, filterNote ? `  ${filterNote}` : '')),
    error ? h(Text, { color: 'red', wrap: 'truncate' }, `daemon: ${inert(error)}`) : h(Text, { wrap: 'truncate' }, subheader),
    h(
      Box,
      { flexDirection: 'column', flexGrow: 1 },
      visible.length === 0
        ? h(Text, { color: 'gray' }, view === 'decisions' && !decisions.loaded ? 'loading…' : `no ${TITLES[view].toLowerCase()} to show${text || verdict ? ' (filtered)' : ''}`)
        : null,
      ...visible.map((r) => h(Text, { key: r.key, color: r.colour, inverse: !detail && r.key === current?.key, wrap: 'truncate' }, r.text)),
    ),
    message
      ? h(
          Box,
          { flexDirection: 'column', borderStyle: 'single', borderColor: message.error ? 'red' : 'cyan' },
          ...message.lines.map((l, i) => h(Text, { key: i, wrap: 'truncate' }, inert(l))),
        )
      : null,
    editing?.kind === 'filter' ? h(Text, null, `filter: ${inert(editing.value)}▏ (Enter apply, Esc cancel)`) : null,
    // The password is never echoed, not even as dots: as cli/prompt.ts does for every secret.
    editing?.kind === 'password' ? h(Text, { color: 'yellow' }, 'operator password: (typing is hidden; Enter to send, Esc to cancel)') : null,
    h(Text, { color: 'gray', wrap: 'truncate' }, `${KEYS[detail ? 'detail' : view]}  1-5/Tab views  Esc back  q quit`),
  )
}
