/**
 * Which MCP server a call goes to, and what it is: the entry of that name in the harness's MCP config
 * files (repo entries override user ones), cross-checked against what the harness says at run time.
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { readText } from '../../core/index.ts'
import type { HarnessDefinition, HarnessEnv, McpServerEntry } from '../../harness-contract/index.ts'
import { identityFromRuntime, identityOf, runtimeMatches } from './fingerprint.ts'
import type { RuntimeIdentity, ServerIdentity } from './fingerprint.ts'

export interface McpResolution {
  readonly server: string
  readonly identity: ServerIdentity
  /** Where the identity came from. */
  readonly from: 'config' | 'runtime' | 'name'
  /** Set when the harness is starting something other than what its config says. */
  readonly runtimeConflict?: boolean
}

/** The git root above `cwd`, or undefined. */
export function findRepoRoot(cwd: string | undefined): string | undefined {
  if (!cwd) return undefined
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir
    if (dirname(dir) === dir) return undefined
  }
}

/** Every MCP server the given harnesses configure for this user (and repo). */
export function configuredServers(harnesses: readonly HarnessDefinition[], env: HarnessEnv): McpServerEntry[] {
  return harnesses.flatMap((h) => {
    try {
      return [...h.mcpServers(env, readText)]
    } catch {
      // A config the harness itself cannot read defines no server it could start.
      return []
    }
  })
}

/** Finds the configured server a runtime identity belongs to (Cursor names no server at run time). */
export function serverForRuntime(entries: readonly McpServerEntry[], runtime: RuntimeIdentity): McpServerEntry | undefined {
  return [...entries].reverse().find((e) => runtimeMatches(identityOf(e), runtime))
}

/** Resolves `server` to an identity, preferring the config entry and flagging a runtime that disagrees. */
export function resolveServer(entries: readonly McpServerEntry[], server: string, runtime: RuntimeIdentity | undefined): McpResolution {
  const entry = [...entries].reverse().find((e) => e.name === server)
  if (entry) {
    const identity = identityOf(entry)
    if (runtime && !runtimeMatches(identity, runtime)) return { server, identity: identityFromRuntime(runtime), from: 'runtime', runtimeConflict: true }
    return { server, identity, from: 'config' }
  }
  if (runtime) return { server, identity: identityFromRuntime(runtime), from: 'runtime' }
  return { server, identity: { transport: 'unknown' }, from: 'name' }
}
