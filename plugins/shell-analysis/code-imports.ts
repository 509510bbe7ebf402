/**
 * The names code gives to modules and to their functions, so a call is recognised whatever it is called:
 * `import subprocess as sp`, `const cp = require('child_process')` (module aliases), and
 * `const { execSync: run } = require('child_process')`, `import { rmSync as rm } from 'fs'`,
 * `from os import system as s` (function aliases). Found by pattern over the source, before the walk.
 */

/** Module aliases of the code being analysed (one analysis at a time: analysis is synchronous). */
export const aliases = new Map<string, string>()
/** Functions imported under a local name, with the module they come from. */
export const functionAliases = new Map<string, { owner: string; name: string }>()

const moduleName = (spec: string): string =>
  spec
    .split('.')
    .pop()!
    .replace(/\/promises$/, '')

/** Fills both maps from `code` (replacing what an earlier analysis left). */
export function collectImports(code: string): void {
  aliases.clear()
  functionAliases.clear()
  const bind = (owner: string, list: string, separator: RegExp): void => {
    for (const entry of list.split(',')) {
      const [original, local = original] = entry
        .trim()
        .split(separator)
        .map((x) => x.trim())
      if (original && local && /^\w+$/.test(local)) functionAliases.set(local, { owner: moduleName(owner), name: original })
    }
  }
  for (const m of code.matchAll(/\b(?:const|let|var)\s*\{([^}]*)\}\s*=\s*(?:await\s+import|require)\(\s*['"`](?:node:)?([\w/-]+)['"`]\s*\)/g)) bind(m[2]!, m[1]!, /\s*:\s*/)
  for (const m of code.matchAll(/\bimport\s*\{([^}]*)\}\s*from\s*['"`](?:node:)?([\w/-]+)['"`]/g)) bind(m[2]!, m[1]!, /\s+as\s+/)
  for (const m of code.matchAll(/\bfrom\s+([\w.]+)\s+import\s+\(?([\w\s,]+)\)?/g)) bind(m[1]!, m[2]!, /\s+as\s+/)
  for (const m of code.matchAll(
    /\bimport\s+([\w.]+)\s+as\s+(\w+)|\b(?:const|let|var)\s+(\w+)\s*=\s*require\(\s*['"`](?:node:)?([\w/-]+)['"`]\s*\)|\bimport\s+\*\s+as\s+(\w+)\s+from\s+['"`](?:node:)?([\w/-]+)['"`]/g,
  )) {
    if (m[1] && m[2]) aliases.set(m[2], m[1].split('.').pop()!)
    if (m[3] && m[4]) aliases.set(m[3], moduleName(m[4]))
    if (m[5] && m[6]) aliases.set(m[5], moduleName(m[6]))
  }
}
