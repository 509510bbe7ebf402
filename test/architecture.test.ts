/**
 * Import direction (STYLE.md §2.1, docs/architecture.md): cli → {plugins, harnesses, guardrail-providers}
 * → core/index.ts → core/*. The core never imports those folders and names no harness, plugins reach the
 * core only through core/index.ts (types through core/types.ts), and plugin folders never import each
 * other (harness folders may share harnesses/kit/, which is not a plugin). cli/ and every plugin reach the
 * core, the daemon, a plugin and a library folder only through its public face, its index.ts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { parse as parseYaml } from 'yaml'
import { harnessPlugins, PLANNED_HARNESSES, PLANNED_PROTECTED } from '../harnesses/index.ts'
import { TEST_ROOTS } from './tiers.ts'

/** Library folders: not plugins, they register nothing; any family imports them through their index.ts. */
const LIBRARIES = ['ledger-verify', 'redaction', 'harness-contract', 'hook-key']

function sources(dir: string): string[] {
  const out: string[] = []
  let entries: string[] = []
  try {
    entries = readdirSync(dir)
  } catch {
    return out
  }
  for (const name of entries) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sources(path))
    else if (name.endsWith('.ts')) out.push(path)
  }
  return out
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/gm), // static, type-only and re-exports
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm), // side-effect imports
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g), // dynamic imports
  ]
  return specs.map((m) => m[1]!).filter((s) => s.startsWith('.'))
}

/** Source files of a top-level folder; fails when there are none, so a moved folder cannot make a check vacuous. */
function checked(dir: string): string[] {
  const files = sources(join(PROJECT_ROOT, dir))
  expect(files.length, `no sources found under ${dir}/`).toBeGreaterThan(0)
  expect(files.flatMap(imports).length, `no relative imports found under ${dir}/ (is the import pattern still right?)`).toBeGreaterThan(0)
  return files
}

const top = (file: string) => relative(PROJECT_ROOT, file).split('/')[0]!

describe('architecture', () => {
  it('core imports nothing outside core (its tests may use the test kits and offline verification)', () => {
    for (const file of checked('core')) {
      const allowed = file.endsWith('.test.ts') ? ['core', 'testing', 'ledger-verify'] : ['core']
      for (const spec of imports(file)) expect(allowed, `${relative(PROJECT_ROOT, file)} imports ${spec}`).toContain(top(resolve(dirname(file), spec)))
    }
  })

  it('plugin families import the core only through core/index.ts or core/types.ts, and never each other', () => {
    for (const family of ['plugins', 'harnesses', 'guardrail-providers']) {
      for (const file of checked(family)) {
        if (file.endsWith('.test.ts')) continue
        for (const spec of imports(file)) {
          const target = resolve(dirname(file), spec)
          const rel = relative(PROJECT_ROOT, target)
          if (top(target) === 'core') {
            expect(['core/index.ts', 'core/types.ts'], `${relative(PROJECT_ROOT, file)} imports ${rel}`).toContain(rel)
          } else if (top(target) === 'daemon') {
            expect(rel, `${relative(PROJECT_ROOT, file)} imports ${rel}`).toBe('daemon/index.ts')
          } else if (LIBRARIES.includes(top(target))) {
            expect(rel, `${relative(PROJECT_ROOT, file)} imports ${rel}`).toBe(`${top(target)}/index.ts`)
          } else {
            expect(top(target), `${relative(PROJECT_ROOT, file)} imports ${rel}`).toBe(family)
          }
        }
      }
    }
  })

  it('plugin folders never import each other (only a family index.ts lists them)', () => {
    // One plugin is one folder: plugins/<name>/ or plugins/gates/<kind>/.
    const folder = (rel: string) =>
      rel
        .split('/')
        .slice(0, rel.startsWith('plugins/gates/') ? 3 : 2)
        .join('/')
    // Shared, non-plugin helper folders a family's plugins may import (they register nothing).
    const shared = new Set(['harnesses/kit', 'guardrail-providers/kit'])
    for (const family of ['plugins', 'harnesses', 'guardrail-providers']) {
      for (const file of checked(family)) {
        const from = relative(PROJECT_ROOT, file)
        if (from.endsWith('.test.ts') || from === `${family}/index.ts` || from === `${family}/commands.ts`) continue
        for (const spec of imports(file)) {
          const rel = relative(PROJECT_ROOT, resolve(dirname(file), spec))
          if (['core', 'daemon', ...LIBRARIES].includes(top(resolve(dirname(file), spec))) || shared.has(folder(rel))) continue
          expect(folder(rel), `${from} imports ${rel}`).toBe(folder(from))
        }
      }
    }
  })

  it('cli/ and plugins import the core, the daemon, a plugin and a library folder only through its public face', () => {
    // Tests are exempt (as are bench/ and test/, which are not scanned): they may reach inside what they test.
    const offenders: string[] = []
    for (const dir of ['cli', 'plugins', 'harnesses', 'guardrail-providers']) {
      for (const file of checked(dir)) {
        if (file.endsWith('.test.ts')) continue
        const from = relative(PROJECT_ROOT, file)
        for (const spec of imports(file)) {
          const to = relative(PROJECT_ROOT, resolve(dirname(file), spec))
          if (unitOf(from) === unitOf(to) || facesOf(to).includes(to)) continue
          offenders.push(`${from} imports ${to}, past ${facesOf(to).join(' / ') || `${unitOf(to)}/ (no face: not importable from here)`}`)
        }
      }
    }
    expect(offenders).toEqual([])
    // The MCP relay starts once per MCP server of every harness session and checks the daemon's answers with the
    // hook key's MAC: hook-key/ stays a leaf (Node built-ins only), or the relay would pay for more at every start.
    expect(
      readFileSync(join(PROJECT_ROOT, 'hook-key/index.ts'), 'utf8')
        .match(/^\s*import[^'"]*['"]([^'"]+)['"]/gm)
        ?.filter((line) => !/['"]node:/.test(line)) ?? [],
      'hook-key/index.ts is no longer a leaf',
    ).toEqual([])
  })

  it("the plugins' command manifests load no plugin code (svc --help reads them)", () => {
    // Type-only imports vanish at run time; a plugin's manifest module (plugins/<name>/commands.ts) is static too.
    const list = join(PROJECT_ROOT, 'plugins', 'commands.ts')
    const runtime = [...readFileSync(list, 'utf8').matchAll(/^\s*(import|export)(?!\s+type\b)[^'"]*from\s+['"]([^'"]+)['"]/gm)].map((m) => m[2]!)
    for (const spec of runtime) expect(relative(PROJECT_ROOT, resolve(dirname(list), spec)), 'plugins/commands.ts').toMatch(/^plugins\/[^/]+\/commands\.ts$/)
  })

  it('core has no import loop and no import running back up: its files and rooms (top-level files, first-level folders) form layers', () => {
    // Type-only imports count: a loop of types still ties the files together.
    const files = checked('core').filter((f) => !f.endsWith('.test.ts'))
    const graph = new Map(
      files.map((f) => [
        relative(PROJECT_ROOT, f),
        imports(f)
          .map((spec) => relative(PROJECT_ROOT, resolve(dirname(f), spec)))
          .filter((t) => t.startsWith('core/')),
      ]),
    )
    const room = (rel: string) => rel.split('/').slice(0, 2).join('/')
    const rooms = new Map<string, Set<string>>()
    for (const [from, targets] of graph)
      for (const to of targets) if (room(from) !== room(to)) (rooms.get(room(from)) ?? rooms.set(room(from), new Set()).get(room(from))!).add(room(to))
    expect(loopsOf(new Map([...graph].map(([k, v]) => [k, new Set(v)]))), 'import loops among core files').toEqual([])
    expect(loopsOf(rooms), 'imports running back up between core rooms').toEqual([])
    expect(rooms.size).toBeGreaterThan(5)
  })

  it('keeps the kernel and the daemon within their budgets (core/ 7,000 source lines, daemon/ 3,000)', () => {
    // What does not fit belongs in a plugin, a library folder or the daemon, not in a bigger kernel.
    const lines = (dir: string) =>
      sources(join(PROJECT_ROOT, dir))
        .concat(jsSources(join(PROJECT_ROOT, dir)))
        .filter((f) => !f.endsWith('.test.ts'))
        .reduce((n, f) => n + readFileSync(f, 'utf8').split('\n').length - 1, 0)
    expect(lines('core')).toBeLessThanOrEqual(7_000)
    expect(lines('daemon')).toBeLessThanOrEqual(3_000)
  })

  it('keeps files under 400 lines', () => {
    // Every source folder (the test roots but test/ itself, whose test files may be long), and the scripts and benches.
    for (const dir of [...TEST_ROOTS.filter((d) => d !== 'test'), 'scripts', 'bench']) {
      const files = sources(join(PROJECT_ROOT, dir))
      expect(files.length, `no sources found under ${dir}/`).toBeGreaterThan(0)
      for (const file of files) {
        if (file.endsWith('.test.ts')) continue
        const lines = readFileSync(file, 'utf8').split('\n').length
        expect(lines, relative(PROJECT_ROOT, file)).toBeLessThanOrEqual(400)
      }
    }
  })

  it('core and the harness contract name no harness: only harness folders know a harness (wire formats, config files, ids)', () => {
    // Registered harnesses by id and by the first word of their name; planned ids too ("factory" is left
    // out: it is also an ordinary word, e.g. tapable's HookMap factory).
    const names = new Set<string>()
    for (const { harness } of harnessPlugins) {
      names.add(harness.id)
      names.add(harness.displayName.split(/\s+/)[0]!)
    }
    for (const id of PLANNED_HARNESSES) if (id !== 'factory') names.add(id)
    const pattern = new RegExp(`\\b(${[...names].map((n) => n.replace(/[-]/g, '\\-')).join('|')})\\b`, 'i')
    const offenders: string[] = []
    for (const file of [...checked('core'), ...checked('harness-contract')]) {
      if (file.endsWith('.test.ts')) continue
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          // The pagination parameter `cursor` of GET /v1/sessions is the ordinary word, not the harness.
          if (pattern.test(line.replace(/\bcursor\??:|`cursor\\?`|\.query\.cursor\b/g, ''))) offenders.push(`${relative(PROJECT_ROOT, file)}:${i + 1}: ${line.trim()}`)
        })
    }
    expect(names.size).toBeGreaterThan(4)
    expect(offenders).toEqual([])
  })
})

describe('a harness is one folder and one line (issue 26)', () => {
  // What would name a harness: its id, the first word of its name, the directories and file names of its configs,
  // the variables that move them, its programs; the planned harnesses' too.
  const env = { home: '/h', repo: '/r', env: {} }
  const terms = new Set<string>(PLANNED_HARNESSES.filter((id) => id !== 'factory'))
  const dirs = new Set<string>()
  for (const { harness: h } of harnessPlugins) {
    for (const term of [h.id, h.displayName.split(/\s+/)[0]!, ...(h.configVariables ?? []), ...(h.protects?.programs ?? [])]) terms.add(term)
    for (const l of h.configLocations(env))
      for (const segment of l.path.split('/').slice(2)) if (segment.startsWith('.') || segment === l.path.split('/').at(-1)) terms.add(segment)
  }
  for (const glob of [
    ...harnessPlugins.flatMap(({ harness: h }) => [...(h.protects?.dirs ?? []), ...(h.protects?.files ?? [])]),
    ...PLANNED_PROTECTED.dirs,
    ...PLANNED_PROTECTED.files,
  ]) {
    // `.config` is the XDG base directory every tool shares (svc's own config lives there too): not a harness's name.
    for (const segment of glob.split('/')) if (/^\.[\w-]+$/.test(segment) && segment !== '.config') dirs.add(segment)
  }
  const literal = (t: string) => t.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')
  const pattern = new RegExp(`(^|[^\\w.-])(${[...terms, ...dirs].map(literal).join('|')})($|[^\\w-])`, 'i')

  it('status, doctor, the installer plugin, the hook protocol and the install round trip name none: they read the registry', () => {
    const files = [
      'cli/status/collect.ts',
      'cli/status/hook-switches.ts',
      'cli/commands/doctor.ts',
      'cli/commands/status.ts',
      'test/install-roundtrip.test.ts',
      ...checked('plugins/installer')
        .filter((f) => !f.endsWith('.test.ts'))
        .map((f) => relative(PROJECT_ROOT, f)),
      ...checked('daemon/hook-protocol')
        .filter((f) => !f.endsWith('.test.ts'))
        .map((f) => relative(PROJECT_ROOT, f)),
    ]
    const offenders = files.flatMap((file) =>
      readFileSync(join(PROJECT_ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    )
    expect(terms.size + dirs.size).toBeGreaterThan(20)
    expect(offenders).toEqual([])
  })

  it('the self-protection pack names no harness path: its path globs take them from the $SVC_HARNESS_* lists', () => {
    const pack = parseYaml(readFileSync(join(PROJECT_ROOT, 'policies', 'self-protection.yaml'), 'utf8')) as { gates: { id: string; when: unknown }[] }
    const globs: string[] = []
    const walk = (node: unknown, key = ''): void => {
      if (Array.isArray(node)) for (const n of node) walk(n, key)
      else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, k)
      else if (typeof node === 'string' && ['path', 'paths_any', 'paths_except', 'reads_any', 'writes_any'].includes(key)) globs.push(node)
    }
    for (const gate of pack.gates) walk(gate.when)
    expect(globs).toContain('$SVC_HARNESS_FILES')
    expect(globs.filter((g) => [...dirs].some((d) => g.split('/').includes(d)))).toEqual([])
  })
})

/**
 * What a path belongs to, for the face rule: the core, the daemon, the CLI, one plugin folder (plugins/<name>/,
 * plugins/gates/<kind>/, harnesses/<id>/, guardrail-providers/<id>/), one library folder (ledger-verify/,
 * redaction/, harness-contract/, harnesses/kit/, guardrail-providers/kit/), or a family's own list (plugins/index.ts, …).
 */
function unitOf(rel: string): string {
  const parts = rel.split('/')
  if (['plugins', 'harnesses', 'guardrail-providers'].includes(parts[0]!)) {
    if (parts.length === 2) return parts[0]! // the family's list, e.g. plugins/index.ts
    return parts.slice(0, parts[1] === 'gates' ? 3 : 2).join('/')
  }
  return parts[0]!
}

/**
 * The public faces of what `rel` belongs to: index.ts, plus the static command manifests of plugins and plugin
 * families (commands.ts); none for folders nothing outside may import (tests, scripts, benches).
 */
function facesOf(rel: string): string[] {
  const unit = unitOf(rel)
  if (unit === 'core') return ['core/index.ts', 'core/types.ts']
  if (['plugins', 'harnesses', 'guardrail-providers'].includes(unit)) return [`${unit}/index.ts`, `${unit}/commands.ts`]
  if (['daemon', ...LIBRARIES].includes(unit) || unit.endsWith('/kit')) return [`${unit}/index.ts`]
  // A plugin folder: its index.ts, and the static manifest of the CLI commands it brings (read by plugins/commands.ts).
  if (unit.includes('/')) return [`${unit}/index.ts`, `${unit}/commands.ts`]
  return []
}

/** Every loop of a directed graph, as its members in a stable order (one entry per strongly connected component). */
function loopsOf(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const loops: string[][] = []
  const visit = (node: string): void => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!))
    }
    if (low.get(node) !== index.get(node)) return
    const members: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      members.push(member)
    } while (member !== node)
    if (members.length > 1 || graph.get(node)?.has(node)) loops.push(members.sort())
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return loops
}

/** The .js files under a folder (the strip hook, the dashboard's modules): source lines too. */
function jsSources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.js'))
    .map((name) => join(dir, name))
}
