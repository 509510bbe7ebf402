// Hash routing: `#/<page>/<arg>?<filters>`. The whole state of a page lives in the URL, so every view is a link.
import { useEffect, useState } from 'preact/hooks'

export function parseRoute(hash = location.hash) {
  const [path, query = ''] = hash.replace(/^#/, '').split('?')
  const [page = 'live', arg] = path.split('/').filter(Boolean)
  return { page, arg, params: Object.fromEntries(new URLSearchParams(query)) }
}

export function href(page, arg, params = {}) {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== '')).toString()
  return `#/${page}${arg !== undefined ? `/${encodeURIComponent(arg)}` : ''}${q ? `?${q}` : ''}`
}

/** Replaces the current URL's filters (no new history entry per keystroke). */
export function setParams(page, arg, params) {
  history.replaceState(null, '', href(page, arg, params))
  dispatchEvent(new HashChangeEvent('hashchange'))
}

export function useRoute() {
  const [route, setRoute] = useState(parseRoute())
  useEffect(() => {
    const on = () => setRoute(parseRoute())
    addEventListener('hashchange', on)
    return () => removeEventListener('hashchange', on)
  }, [])
  return route
}
