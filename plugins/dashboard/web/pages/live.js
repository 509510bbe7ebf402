// Live: the decision stream over SSE (stream.js, with the login's secret; resuming from the last seq after a reconnect), filtered by what the URL
// says, virtualised (only the rows in view are in the DOM), with pause/resume. Each decision shows its command
// (or path or URL) as the daemon redacts it for every surface (GET /v1/ledger/calls), and the text filter finds it.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { get } from '../api.js'
import { html } from '../html.js'
import { href, setParams } from '../route.js'
import { openStream } from '../stream.js'

const ROW = 30
const KEEP = 20000
const FILTERS = [
  ['verdict', 'verdict (deny,allow,…)'],
  ['harness', 'harness / source'],
  ['session', 'session'],
  ['gate', 'gate'],
  ['tool', 'tool'],
  ['q', 'text (command, reason, …)'],
  ['since', 'since (ISO time)'],
]

/** What a call was about, redacted by the daemon: its command, path or URL. */
export function subjectOf(call) {
  const input = call?.input
  return input ? (input.command ?? input.path ?? input.url ?? '') : ''
}

export function matches(leaf, f, subject = '') {
  if (f.verdict && !f.verdict.split(',').includes(leaf.verdict)) return false
  if (f.harness && leaf.source !== f.harness) return false
  if (f.session && leaf.session_id !== f.session) return false
  if (f.gate && leaf.rule_id !== f.gate) return false
  if (f.tool && leaf.tool !== f.tool) return false
  if (f.since && leaf.ts_ms < Date.parse(f.since)) return false
  if (f.q) {
    const q = f.q.toLowerCase()
    if (
      ![leaf.tool, leaf.reason, leaf.rule_id, leaf.source, leaf.session_id, subject].some((s) =>
        String(s ?? '')
          .toLowerCase()
          .includes(q),
      )
    )
      return false
  }
  return true
}

function Row({ e, top, subject }) {
  const l = e.leaf
  return html`<a class=${`row v-${l.verdict}`} style=${{ transform: `translateY(${top}px)` }} href=${href('decision', e.seq)} data-seq=${e.seq}>
    <span class="seq">${e.seq}</span>
    <span class="time">${new Date(l.ts_ms).toLocaleTimeString()}</span>
    <span class="verdict">${l.verdict}</span>
    <span class="src">${l.source}</span>
    <span class="tool">${l.tool}</span>
    <span class="rule">${l.rule_id}</span>
    <span class="subject" title=${subject}><code>${subject}</code></span>
    <span class="reason" title=${l.reason}>${l.reason}</span>
  </a>`
}

export function LivePage({ route }) {
  const f = route.params
  const [entries, setEntries] = useState([])
  const [conn, setConn] = useState('connecting')
  const [paused, setPaused] = useState(false)
  const [heldCount, setHeldCount] = useState(0)
  const held = useRef([])
  const pausedRef = useRef(false)
  const [scroll, setScroll] = useState(0)
  const [height, setHeight] = useState(600)
  const box = useRef(null)
  const [calls, setCalls] = useState(() => new Map())
  const wanted = useRef([])
  const timer = useRef(undefined)
  // Calls are fetched in batches (at most 500 seqs a request) a moment after their entries arrive.
  const want = useCallback((batch) => {
    wanted.current.push(...batch.filter((e) => e.leaf.type === 'decision').map((e) => e.seq))
    timer.current ??= setTimeout(async () => {
      timer.current = undefined
      const seqs = wanted.current.splice(0)
      for (let i = 0; i < seqs.length; i += 500) {
        const r = await get(`/v1/ledger/calls?seqs=${seqs.slice(i, i + 500).join(',')}`).catch(() => ({ calls: [] }))
        setCalls((old) => {
          const next = new Map(old)
          for (const c of r.calls) next.set(c.seq, c)
          return next
        })
      }
    }, 150)
  }, [])

  useEffect(() => {
    let stopStream
    let closed = false
    const add = (batch) => {
      want(batch)
      setEntries((old) => {
        const seen = new Set(old.map((e) => e.seq))
        return [...batch.filter((e) => !seen.has(e.seq)).reverse(), ...old].sort((a, b) => b.seq - a.seq).slice(0, KEEP)
      })
    }
    get('/v1/ledger/entries?order=desc&limit=500').then(
      (r) => {
        if (closed) return
        add([...r.entries].reverse())
        stopStream = openStream(r.tree_size - 1, {
          onState: setConn,
          onEntry: (e) => {
            if (e.leaf.type === 'control') dispatchEvent(new Event('svc:control'))
            if (pausedRef.current) {
              held.current.push(e)
              setHeldCount(held.current.length)
            } else add([e])
          },
        })
      },
      () => setConn('error'),
    )
    return () => {
      closed = true
      stopStream?.()
    }
  }, [want])

  useEffect(() => {
    const measure = () => box.current && setHeight(box.current.clientHeight)
    measure()
    addEventListener('resize', measure)
    return () => removeEventListener('resize', measure)
  }, [])

  // biome-ignore lint/correctness/useExhaustiveDependencies: f is route.params, so the route stands for it
  const shown = useMemo(() => entries.filter((e) => matches(e.leaf, f, subjectOf(calls.get(e.seq)))), [entries, calls, route])
  const first = Math.max(0, Math.floor(scroll / ROW) - 5)
  const last = Math.min(shown.length, first + Math.ceil(height / ROW) + 10)
  const toggle = () => {
    pausedRef.current = !paused
    if (paused) {
      const batch = held.current
      held.current = []
      setHeldCount(0)
      want(batch)
      setEntries((old) => [...batch.reverse(), ...old].slice(0, KEEP))
    }
    setPaused(!paused)
  }
  // What the user is typing, until Enter or leaving the field applies it: a live entry re-renders the page, and a
  // field bound to the URL alone would lose the half-typed text.
  const [draft, setDraft] = useState({})
  const setFilter = (key, value) => {
    setDraft(({ [key]: _, ...rest }) => rest)
    setParams('live', undefined, { ...f, [key]: value })
  }

  return html`<section>
    <div class="bar">
      <span class=${`conn conn-${conn}`} data-testid="conn">${conn}</span>
      <button onClick=${toggle} data-testid="pause">${paused ? `Resume (${heldCount} held)` : 'Pause'}</button>
      <span>${shown.length} of ${entries.length} shown</span>
    </div>
    <form class="filters" onSubmit=${(e) => e.preventDefault()}>
      ${FILTERS.map(([key, label]) => html`<label>${label}<input name=${key} value=${draft[key] ?? f[key] ?? ''} onInput=${(e) => setDraft((d) => ({ ...d, [key]: e.target.value }))} onChange=${(e) => setFilter(key, e.target.value)} /></label>`)}
    </form>
    <div class="rows" ref=${box} onScroll=${(e) => setScroll(e.target.scrollTop)} data-testid="rows">
      <div class="spacer" style=${{ height: `${shown.length * ROW}px` }}>
        ${shown.slice(first, last).map((e, i) => html`<${Row} key=${e.seq} e=${e} top=${(first + i) * ROW} subject=${subjectOf(calls.get(e.seq))} />`)}
      </div>
    </div>
  </section>`
}
