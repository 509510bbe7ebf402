/**
 * Regenerates the everyday corpus (test/corpus/everyday/*.yaml) from public repositories mirrored locally
 * (`fetch github:tldr-pages/tldr` etc. puts them under /work/.mirror). Not run by the tests: the YAML it
 * writes is committed as data, with the commit it came from in each file's header.
 *   node test/corpus/everyday/extract.ts /work/.mirror [tldr|ci|repos ...]
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
/** More languages (Python, Go, Rust, JavaScript, Java, Ruby, C); these also give Makefile recipes and Dockerfile RUN lines. */
const MORE_REPOS = [
  'BurntSushi+ripgrep',
  'clap-rs+clap',
  'psf+black',
  'pypa+pip',
  'spf13+cobra',
  'cli+cli',
  'expressjs+express',
  'prettier+prettier',
  'google+gson',
  'sinatra+sinatra',
  'rubocop+rubocop',
  'jqlang+jq',
  'redis+redis',
  'facebook+zstd',
  'curl+curl',
]

/** A Makefile's recipe lines (tab-indented, `\` continuations joined), `@`/`-` prefixes dropped, `$(VAR)` as `$VAR`. */
export function makeRecipes(text: string): string[] {
  const out: string[] = []
  const lines = text.replace(/\\\n\t?/g, ' ').split('\n')
  for (const line of lines) {
    if (!line.startsWith('\t')) continue
    const raw = line
      .slice(1)
      .replace(/^[@+-]+/, '')
      .trim()
    // Make functions (`$(shell …)`, `$(wildcard …)`) and automatic variables are make's, not the shell's.
    if (raw === '' || /(?<!\$)\$(?:[({](?:[a-z]+ |[@<^*?%])|[@<^*?%])|\$[({]\w*\$[({]/.test(raw)) continue
    out.push(
      raw
        .replace(/\$\$/g, '\0')
        .replace(/\$[({](\w+)[)}]/g, '$$$1')
        .replace(/\0/g, '$'),
    )
  }
  return out
}

/** A Dockerfile's shell-form RUN instructions (continuations joined). */
export function dockerRuns(text: string): string[] {
  const joined = text.replace(/\\\r?\n/g, ' ')
  return [...joined.matchAll(/^\s*RUN\s+(?!\[)(?:--\S+\s+)*(.+)$/gim)].map((m) => m[1]!.replace(/\s+/g, ' ').trim())
}

function ci(repos = CI_REPOS, label = 'CI workflow run: steps and package.json scripts', recipes = false): { header: string; cases: { cmd: string; source: string }[] } {
  const cases: { cmd: string; source: string }[] = []
  const seen = new Set<string>()
  const add = (cmd: string, source: string): void => {
    const clean = cmd.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, e: string) => e.replace(/[^\w]+/g, '_')).trim()
    if (clean === '' || seen.has(clean)) return
    seen.add(clean)
    cases.push({ cmd: clean, source })
  }
  const heads: string[] = []
  for (const repo of repos) {
    const commit = git(repo, 'rev-parse', 'HEAD').trim()
    const name = repo.replace('+', '/')
    heads.push(`${name}@${commit}`)
    const files = git(repo, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n').sort()
    for (const file of files.filter((f) => /^\.github\/workflows\/.+\.ya?ml$/.test(f))) {
      type Step = { run?: unknown; shell?: unknown }
      const doc = parse(git(repo, 'show', `HEAD:${file}`)) as { jobs?: Record<string, { steps?: Step[]; defaults?: { run?: { shell?: unknown } } }> }
      for (const job of Object.values(doc?.jobs ?? {}))
        for (const step of job?.steps ?? []) {
          // Steps run by PowerShell, cmd or Python (`shell: pwsh`) are not shell text (only in the newer sets, so older ones stay as committed).
          const shell = String(step?.shell ?? job?.defaults?.run?.shell ?? 'bash')
          if (typeof step?.run === 'string' && (!recipes || /^(bash|sh)\b/.test(shell))) add(step.run, `${name}/${file}`)
        }
    }
    for (const file of files.filter((f) => /(^|\/)package\.json$/.test(f) && !/fixtures?\//.test(f))) {
      try {
        const scripts = (JSON.parse(git(repo, 'show', `HEAD:${file}`)) as { scripts?: Record<string, unknown> }).scripts ?? {}
        for (const v of Object.values(scripts)) if (typeof v === 'string') add(v, `${name}/${file}`)
      } catch {
        // not JSON (a template): skipped
      }
    }
    if (!recipes) continue
    for (const file of files.filter((f) => /(^|\/)(GNU)?Makefile$/.test(f) && !/(^|\/)(tests?|fixtures?|vendor|deps)\//.test(f)))
      for (const c of makeRecipes(git(repo, 'show', `HEAD:${file}`))) add(c, `${name}/${file}`)
    for (const file of files.filter((f) => /(^|\/)Dockerfile(\.\w+)?$/.test(f))) for (const c of dockerRuns(git(repo, 'show', `HEAD:${file}`))) add(c, `${name}/${file}`)
  }
  return { header: `${label} of ${heads.join(', ')}.`, cases }
}

const which = process.argv.slice(3)
for (const [name, make] of [
  ['tldr', tldr],
  ['ci', () => ci()],
  ['repos', () => ci(MORE_REPOS, 'CI workflow run: steps, package.json scripts, Makefile recipes and Dockerfile RUN lines', true)],
] as const) {
  if (which.length > 0 && !which.includes(name)) continue
  const set = make()
  writeFileSync(
    join(out, `${name}.yaml`),
    `# ${set.header}\n# ${set.cases.length} commands. Regenerate with test/corpus/everyday/extract.ts.\n${stringify(set.cases, { lineWidth: 0 })}`,
  )
  console.log(name, set.cases.length)
}
