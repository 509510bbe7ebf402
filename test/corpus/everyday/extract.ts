/**
 * Regenerates the everyday corpus (test/corpus/everyday/*.yaml) from public repositories mirrored locally
 * (`fetch github:tldr-pages/tldr` etc. puts them under /work/.mirror). Not run by the tests: the YAML it
 * writes is committed as data, with the commit it came from in each file's header.
 *   node test/corpus/everyday/extract.ts /work/.mirror
 * tldr: the first example of every page in pages/common, placeholders substituted deterministically
 * (`{{path/to/file}}` → `path/to/file`, `{{[-r|--recursive]}}` → `-r`, `{{a[.gz|.xz]}}` → `a.gz`, `{{a|b}}` → `a`,
 * `...` dropped).
 * CI: every `run:` step of .github/workflows, and every package.json script, of the repositories listed;
 * GitHub expressions `${{ x.y }}` become the word `x_y`.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse, stringify } from 'yaml'

const mirror = process.argv[2] ?? '/work/.mirror'
const out = new URL('.', import.meta.url).pathname
const git = (repo: string, ...args: string[]): string => execFileSync('git', ['-C', join(mirror, repo, 'repo'), ...args], { encoding: 'utf8', maxBuffer: 1 << 28 })

/** tldr placeholder syntax → one concrete spelling. */
export function substitute(example: string): string {
  return example
    .replace(/\{\{(.*?)\}\}/g, (_, inner: string) => {
      let v = inner.replace(/\[([^\]|]*)\|[^\]]*\]/g, '$1') // [-r|--recursive] or [.gz|.xz]: first alternative
      v = v.replace(/\s*\.\.\.$/, '').replace(/\s+\.\.\.\s+/g, ' ')
      // `{{pods|nodes|deployments}}`: the first alternative.
      return v.includes('|') ? (v.split('|').find((a) => a !== '') ?? '') : v
    })
    .trim()
}

function tldr(): { header: string; cases: { cmd: string; source: string }[] } {
  const commit = git('tldr-pages+tldr', 'rev-parse', 'HEAD').trim()
  const files = git('tldr-pages+tldr', 'ls-tree', '--name-only', 'HEAD', 'pages/common/')
    .split('\n')
    .filter((f) => f.endsWith('.md'))
    .sort()
  const cases: { cmd: string; source: string }[] = []
  const seen = new Set<string>()
  for (const file of files) {
    const text = git('tldr-pages+tldr', 'show', `HEAD:${file}`)
    const m = /^`([^`\n]+)`$/m.exec(text)
    if (!m) continue
    const cmd = substitute(m[1]!)
    if (cmd === '' || seen.has(cmd)) continue
    seen.add(cmd)
    cases.push({ cmd, source: file.replace(/^pages\//, '') })
  }
  return { header: `tldr-pages/tldr@${commit}: first example of every page in pages/common, placeholders substituted (see extract.ts).`, cases }
}

const CI_REPOS = ['vitejs+vite', 'pallets+flask', 'tokio-rs+tokio']

function ci(): { header: string; cases: { cmd: string; source: string }[] } {
  const cases: { cmd: string; source: string }[] = []
  const seen = new Set<string>()
  const add = (cmd: string, source: string): void => {
    const clean = cmd.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, e: string) => e.replace(/[^\w]+/g, '_')).trim()
    if (clean === '' || seen.has(clean)) return
    seen.add(clean)
    cases.push({ cmd: clean, source })
  }
  const heads: string[] = []
  for (const repo of CI_REPOS) {
    const commit = git(repo, 'rev-parse', 'HEAD').trim()
    const name = repo.replace('+', '/')
    heads.push(`${name}@${commit}`)
    const files = git(repo, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n').sort()
    for (const file of files.filter((f) => /^\.github\/workflows\/.+\.ya?ml$/.test(f))) {
      const doc = parse(git(repo, 'show', `HEAD:${file}`)) as { jobs?: Record<string, { steps?: { run?: unknown }[] }> }
      for (const job of Object.values(doc?.jobs ?? {})) for (const step of job?.steps ?? []) if (typeof step?.run === 'string') add(step.run, `${name}/${file}`)
    }
    for (const file of files.filter((f) => /(^|\/)package\.json$/.test(f) && !/fixtures?\//.test(f))) {
      try {
        const scripts = (JSON.parse(git(repo, 'show', `HEAD:${file}`)) as { scripts?: Record<string, unknown> }).scripts ?? {}
        for (const v of Object.values(scripts)) if (typeof v === 'string') add(v, `${name}/${file}`)
      } catch {
        // not JSON (a template): skipped
      }
    }
  }
  return { header: `CI workflow run: steps and package.json scripts of ${heads.join(', ')}.`, cases }
}

for (const [name, set] of [
  ['tldr', tldr()],
  ['ci', ci()],
] as const) {
  writeFileSync(
    join(out, `${name}.yaml`),
    `# ${set.header}\n# ${set.cases.length} commands. Regenerate with test/corpus/everyday/extract.ts.\n${stringify(set.cases, { lineWidth: 0 })}`,
  )
  console.log(name, set.cases.length)
}
