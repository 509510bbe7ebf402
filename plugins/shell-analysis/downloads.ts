/**
 * Where a downloader writes: `curl -o FILE`, `curl -O URL` (the URL's basename), `wget -O FILE`,
 * `wget URL` (basename). Used to flag `curl -o x.sh URL && bash x.sh` as download-then-execute.
 */
import { lexicalPath } from './paths.ts'
import type { AnalysisState, Scope } from './state.ts'

/** Files `argv` downloads into (raw, relative to the command's cwd). */
export function downloadTargets(program: string, argv: readonly string[]): string[] {
  const out: string[] = []
  const urls = argv.filter((a) => /^[a-z][a-z0-9+.-]*:\/\//i.test(a))
  let remoteName = false
  let explicit = false
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    const next = argv[i + 1]
    if (program === 'curl') {
      if ((arg === '-o' || arg === '--output') && next !== undefined) {
        out.push(next)
        explicit = true
        i++
      } else if (arg.startsWith('--output=')) out.push(arg.slice('--output='.length))
      else if (/^-[a-zA-Z]*o$/.test(arg) && next !== undefined) {
        out.push(next)
        explicit = true
        i++
      } else if (arg === '-O' || arg === '--remote-name' || /^-[a-zA-Z]*O[a-zA-Z]*$/.test(arg)) remoteName = true
    } else if (program === 'wget') {
      if ((arg === '-O' || arg === '--output-document') && next !== undefined) {
        if (next !== '-') out.push(next)
        explicit = true
        i++
      } else if (arg.startsWith('--output-document=')) {
        explicit = true
        if (arg.slice(18) !== '-') out.push(arg.slice(18))
      } else if (/^-[a-zA-Z]*O.+$/.test(arg)) {
        explicit = true
        const value = arg.slice(arg.indexOf('O') + 1)
        if (value !== '-') out.push(value)
      }
    }
  }
  if ((program === 'wget' && !explicit) || remoteName) for (const url of urls) out.push(basename(url))
  return out.filter((p) => p !== '')
}

function basename(url: string): string {
  const path = url.replace(/[?#].*$/, '').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '')
  return path.slice(path.lastIndexOf('/') + 1) || 'index.html'
}

/** Remembers a file a downloader writes, so running it later in the same command is seen. */
export function addDownload(st: AnalysisState, scope: Scope, raw: string): void {
  const path = lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })
  if (path) st.downloads.add(path)
}

/** Running a file downloaded earlier in the same command is download-then-execute. */
export function runsDownloaded(st: AnalysisState, scope: Scope, raw: string | undefined): void {
  if (raw === undefined || st.downloads.size === 0) return
  const path = lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })
  if (path && st.downloads.has(path)) st.signals.add('download_exec')
}
