// The live stream (GET /events) read with fetch, not EventSource: EventSource cannot send the login's secret
// (X-CSRF-Token), and the cookie alone, which the browser also sends to other ports of 127.0.0.1, must not
// open the stream. Reconnects after a second from the last id seen (Last-Event-ID), as EventSource would.
import { loginSecret } from './api.js'

/** Opens the stream after `after`; calls onEntry(entry) per frame and onState('live' | 'reconnecting' | 'closed'). Returns a stop function. */
export function openStream(after, { onEntry, onState }) {
  const stop = new AbortController()
  let last = String(after)
  const frame = (text) => {
    let event = 'message'
    const data = []
    for (const line of text.split('\n')) {
      const colon = line.indexOf(':')
      if (colon === 0) continue
      const field = colon < 0 ? line : line.slice(0, colon)
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'event') event = value
      else if (field === 'data') data.push(value)
      else if (field === 'id') last = value
    }
    if (event === 'entry' && data.length > 0) onEntry(JSON.parse(data.join('\n')))
  }
  const run = async () => {
    while (!stop.signal.aborted) {
      try {
        const res = await fetch('/events', { headers: { ...loginSecret(), accept: 'text/event-stream', 'last-event-id': last }, signal: stop.signal })
        // Logged out or expired: reconnecting cannot help.
        if (res.status === 401 || res.status === 403) return onState('closed')
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`)
        onState('live')
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
        let buffer = ''
        for (let r = await reader.read(); !r.done; r = await reader.read()) {
          buffer += r.value.replace(/\r\n?/g, '\n')
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            frame(buffer.slice(0, end))
            buffer = buffer.slice(end + 2)
          }
        }
      } catch {
        // a dropped connection or a daemon restart: retried below
      }
      if (stop.signal.aborted) return
      onState('reconnecting')
      await new Promise((r) => setTimeout(r, 1000))
    }
  }
  run()
  return () => stop.abort()
}
