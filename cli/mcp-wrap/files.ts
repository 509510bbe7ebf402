/**
 * The MCP config files of every registered harness (user scope, and the repository's when there is one), with
 * their text, and the wrap manifest `$SVC_HOME/mcp-wrap.json` (what each wrap replaced, for byte-exact unwrap).
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { harnessPlugins } from '../../harnesses/index.ts'
import type { McpConfigFile, WrapRecord } from './plan.ts'

export function findRepoRoot(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir
    if (dirname(dir) === dir) return undefined
  }
}

/** Existing MCP config files, one entry per path (the first harness that names it edits it). */
export function mcpConfigFiles(home: string, repo: string | undefined, env: NodeJS.ProcessEnv): McpConfigFile[] {
  const seen = new Set<string>()
  const out: McpConfigFile[] = []
  for (const { harness } of harnessPlugins) {
    for (const loc of harness.configLocations({ home, repo, env })) {
      if (loc.purpose !== 'mcp' || seen.has(loc.path) || !existsSync(loc.path)) continue
      seen.add(loc.path)
      out.push({ path: loc.path, format: loc.format, harness: harness.id, text: readFileSync(loc.path, 'utf8'), ...(loc.mcpShape ? { shape: loc.mcpShape } : {}) })
    }
  }
  return out
}

const manifestPath = (svcHome: string) => join(svcHome, 'mcp-wrap.json')

export function readWrapManifest(svcHome: string): WrapRecord[] {
  try {
    const parsed = JSON.parse(readFileSync(manifestPath(svcHome), 'utf8')) as { version: 1; records: WrapRecord[] }
    return Array.isArray(parsed.records) ? parsed.records : []
  } catch {
    return []
  }
}

export function writeWrapManifest(svcHome: string, records: readonly WrapRecord[]): void {
  writeFileAtomic.sync(manifestPath(svcHome), `${JSON.stringify({ version: 1, records }, null, 2)}\n`, { mode: 0o600 })
}
