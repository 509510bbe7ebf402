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

/** Running a file downloaded earlier in the same command (or inside a cloned or extracted tree) is download-then-execute. */
export function runsDownloaded(st: AnalysisState, scope: Scope, raw: string | undefined): void {
  if (raw === undefined || st.downloads.size === 0) return
  const path = lexicalPath(raw, { home: st.options.home, cwd: scope.cwd })
  if (path && [...st.downloads].some((d) => path === d || path.startsWith(d.endsWith('/') ? d : `${d}/`))) st.signals.add('download_exec')
}

const ARCHIVERS: ReadonlySet<string> = new Set(['tar', 'bsdtar', 'gtar', 'unzip', '7z', '7za', 'unrar', 'bunzip2', 'gunzip', 'xz', 'unxz', 'zstd'])

/**
 * Other ways content from the network lands in a file: a downloader's output redirected (`curl URL > i.sh`),
 * `tee` fed by a downloader, `git clone URL [DIR]` (the whole tree), and an archive that was downloaded,
 * extracted (`-C DIR`, `-d DIR`, or the working directory).
 */
export function trackDownloads(st: AnalysisState, scope: Scope, program: string, argv: readonly string[], writes: readonly string[], upstream: readonly string[]): void {
  const fromNetwork = DOWNLOAD_PROGRAMS.has(program) || (program === 'tee' && upstream.some((p) => DOWNLOAD_PROGRAMS.has(p)))
  if (fromNetwork) for (const w of writes) addDownload(st, scope, w)
  if (program === 'tee' && upstream.some((p) => DOWNLOAD_PROGRAMS.has(p))) for (const a of argv.slice(1)) if (!a.startsWith('-')) addDownload(st, scope, a)
  if ((program === 'git' || program === 'gh' || program === 'hg' || program === 'svn') && argv.some((a) => a === 'clone' || (a === 'checkout' && program === 'svn'))) {
    const operands = argv.slice(argv.indexOf('clone') + 1).filter((a) => !a.startsWith('-'))
    const [url, dir] = operands
    if (url !== undefined)
      addDownload(
        st,
        scope,
        dir ??
          url
            .replace(/\.git\/?$/, '')
            .replace(/\/+$/, '')
            .replace(/^.*[/:]/, ''),
      )
  }
  // An archive that was downloaded, as a file or piped straight in (`curl … | tar xz`): what it extracts is downloaded too.
  const piped = upstream.some((p) => DOWNLOAD_PROGRAMS.has(p))
  if (ARCHIVERS.has(program) && (st.downloads.size > 0 || piped)) {
    const archive = argv.slice(1).find((a) => !a.startsWith('-') && /\.(t?gz|tar|tgz|zip|xz|bz2|zst|7z|rar)$/.test(a))
    const ctx = { home: st.options.home, cwd: scope.cwd }
    const path = archive === undefined ? undefined : lexicalPath(archive, ctx)
    if ((path !== undefined && st.downloads.has(path)) || (archive === undefined && piped)) {
      const at = argv.findIndex((a) => a === '-C' || a === '--directory' || a === '-d' || a.startsWith('-o'))
      const dir = at === -1 ? '.' : argv[at]!.startsWith('-o') && argv[at]!.length > 2 ? argv[at]!.slice(2) : (argv[at + 1] ?? '.')
      addDownload(st, scope, dir)
    }
  }
}

const DOWNLOAD_PROGRAMS: ReadonlySet<string> = new Set(['curl', 'wget', 'fetch', 'http', 'https', 'xh', 'aria2c', 'lwp-request', 'lwp-download', 'GET', 'axel', 'httpie', 'curlie'])
