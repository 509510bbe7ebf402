/**
 * The documentation stays true to the tree (files only: no process, no port): the layout table of
 * docs/architecture.md is what scripts/layout.ts computes now, the README stays a front door (at most 300
 * lines), and every relative link of the README and docs/*.md reaches a file, and a heading when it names one.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { currentBlock, layoutBlock, markdownDocuments, PROJECT_ROOT } from '../scripts/layout.ts'

const documents = markdownDocuments()
const read = (doc: string) => readFileSync(join(PROJECT_ROOT, doc), 'utf8')

/** The text outside fenced code blocks and inline code spans: links and headings there are examples, not links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '')
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/** The anchors a markdown file defines (repeated headings get -1, -2, … as on GitHub). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const m of markdown.replace(/^```[\s\S]*?^```[^\n]*$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(m[1]!)
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

/** Every relative link (`[text](target)`) of a document that does not reach its file or heading. */
function brokenLinks(doc: string): string[] {
  const broken: string[] = []
  for (const m of prose(read(doc)).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1]!
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
    const [path, anchor] = target.split('#', 2) as [string, string | undefined]
    const file = path === '' ? join(PROJECT_ROOT, doc) : resolve(dirname(join(PROJECT_ROOT, doc)), decodeURIComponent(path))
    if (!existsSync(file)) {
      broken.push(`${doc}: ${target} (no ${relative(PROJECT_ROOT, file)})`)
      continue
    }
    if (anchor !== undefined && file.endsWith('.md') && statSync(file).isFile() && !anchors(readFileSync(file, 'utf8')).has(anchor)) {
      broken.push(`${doc}: ${target} (no heading #${anchor} in ${relative(PROJECT_ROOT, file)})`)
    }
  }
  return broken
}

describe('documentation', () => {
  it('docs/architecture.md holds the layout table scripts/layout.ts computes from the tree', () => {
    const block = currentBlock()
    expect(block, 'docs/architecture.md has no <!-- layout:begin --> … <!-- layout:end --> markers').toBeDefined()
    expect(block, 'the layout table of docs/architecture.md is out of date: run `npm run docs:layout`').toBe(layoutBlock())
  })

  it('keeps the README a front door: at most 300 lines', () => {
    const lines = read('README.md').split('\n').length - 1
    expect(lines, 'README.md is over 300 lines: move the detail into docs/').toBeLessThanOrEqual(300)
  })

  it('has every relative link of README.md and docs/*.md reach an existing file and heading', () => {
    expect(documents.length).toBeGreaterThan(1)
    expect(documents.flatMap(brokenLinks)).toEqual([])
  })

  it('finds broken links and headings (the checker itself)', () => {
    expect(slug('MCP proxy (`svc mcp-proxy`)')).toBe('mcp-proxy-svc-mcp-proxy')
    expect(slug('A deny was wrong: what now')).toBe('a-deny-was-wrong-what-now')
    expect(anchors('# T\n```sh\n# not a heading\n```\n## Two\n## Two\n')).toEqual(new Set(['t', 'two', 'two-1']))
    expect(prose('see [a](x.md) and `[b](y.md)`\n```\n[c](z.md)\n```\n')).toBe('see [a](x.md) and \n\n')
  })
})
