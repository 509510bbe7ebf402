/**
 * The hosts a project's ordinary work reaches, found in its files: the registries its lockfiles and manifests
 * install from (the `resolved` URLs of an npm lockfile, pip's index, crates.io, the Go proxy, RubyGems) and its
 * git remotes' hosts (https and ssh spellings). `svc install --sandbox` offers them: with none allowed, every
 * dependency install and `git fetch`/`push` fails inside the sandbox, and a sandbox users switch off protects nobody.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface NetworkNeed {
  readonly domain: string
  /** The file that shows the need. */
  readonly why: string
}

const MANIFESTS: readonly { readonly files: readonly string[]; readonly domains: readonly string[] }[] = [
  { files: ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'package.json'], domains: ['registry.npmjs.org'] },
  { files: ['bun.lock', 'bun.lockb'], domains: ['registry.npmjs.org'] },
  { files: ['requirements.txt', 'pyproject.toml', 'poetry.lock', 'uv.lock', 'Pipfile.lock', 'setup.py'], domains: ['pypi.org', 'files.pythonhosted.org'] },
  { files: ['Cargo.toml', 'Cargo.lock'], domains: ['index.crates.io', 'static.crates.io', 'crates.io'] },
  { files: ['go.mod', 'go.sum'], domains: ['proxy.golang.org', 'sum.golang.org'] },
  { files: ['Gemfile', 'Gemfile.lock'], domains: ['rubygems.org', 'index.rubygems.org'] },
]

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** Hosts of the URLs in `text` that look like package downloads (`resolved`, `registry`, `index-url`). */
function hostsIn(text: string): string[] {
  const out = new Set<string>()
  for (const m of text.matchAll(/(?:resolved|registry|index-url|extra-index-url|source)["'\s:=]+["']?(https?:\/\/[^\s"'/]+)/g)) {
    try {
      out.add(new URL(m[1]!).hostname)
    } catch {
      // not a URL
    }
  }
  return [...out]
}

/** The host of a git remote URL (`https://host/…`, `ssh://git@host/…`, `git@host:owner/repo`). */
export function remoteHost(url: string): string | undefined {
  const scp = /^[\w.-]+@([\w.-]+):/.exec(url)
  if (scp) return scp[1]
  try {
    const host = new URL(url).hostname
    return host || undefined
  } catch {
    return undefined
  }
}

/** Remote URLs in a repository's `.git/config`. */
function gitRemotes(repo: string): string[] {
  const text = read(join(repo, '.git', 'config')) ?? ''
  return [...text.matchAll(/^\s*url\s*=\s*(\S+)\s*$/gm)].map((m) => m[1]!)
}

export function networkNeeds(repo: string): NetworkNeed[] {
  const out = new Map<string, string>()
  for (const m of MANIFESTS) {
    const file = m.files.find((f) => existsSync(join(repo, f)))
    if (!file) continue
    const found = hostsIn(read(join(repo, file)) ?? '')
    for (const d of found.length ? found : m.domains) if (!out.has(d)) out.set(d, file)
  }
  for (const rc of ['.npmrc', 'pip.conf', '.yarnrc.yml']) for (const d of hostsIn(read(join(repo, rc)) ?? '')) if (!out.has(d)) out.set(d, rc)
  for (const url of gitRemotes(repo)) {
    const host = remoteHost(url)
    if (host && !out.has(host)) out.set(host, `.git/config (remote ${url})`)
  }
  // Loopback is never offered: it is where the daemon listens.
  return [...out].filter(([d]) => !/^(localhost|127\.|0\.0\.0\.0|\[?::1\]?)/.test(d)).map(([domain, why]) => ({ domain, why }))
}
