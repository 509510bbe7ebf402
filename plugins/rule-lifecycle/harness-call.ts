/**
 * A tool call as a harness would deliver it: the native tool name and input go through that harness's own
 * `parse`, exactly as the hook route does, so `run_shell_command` from Gemini becomes the same `Bash` call
 * the daemon gates. Used by fixtures and `svc explain --harness`.
 */
import type { Registries, ToolCall } from '../../core/index.ts'
import { harnessRegistry } from '../../harness-contract/index.ts'

/** Maps a native call of `harness` to the policy's call (tool name, input, cwd, meta). */
export function harnessCall(registry: Registries, harness: string, tool: string, input: Record<string, unknown>, cwd: string | undefined): Omit<ToolCall, 'sessionId'> {
  const def = harnessRegistry(registry).get(harness)
  if (!def) throw new Error(`unknown harness "${harness}" (known: ${[...harnessRegistry(registry).keys()].sort().join(', ')})`)
  const problems: string[] = []
  const own = def.nativeCall?.(tool, input, cwd)
  const shapes = own
    ? [[own.event, own.payload] as const]
    : Object.entries(def.events)
        .filter(([, phase]) => phase === 'pre')
        .map(
          ([event]) =>
            [event, { hook_event_name: event, tool_name: tool, tool_input: input, ...(cwd ? { cwd } : {}), session_id: 'svc-fixture', tool_use_id: 'svc-fixture' }] as const,
        )
  for (const [event, payload] of shapes) {
    try {
      const parsed = def.parse(event, payload)
      if (parsed.kind === 'call') return parsed.call
      problems.push(`${event}: ${parsed.kind === 'ignore' ? parsed.why : 'not a call'}`)
    } catch (err) {
      problems.push(`${event}: ${(err as Error).message}`)
    }
  }
  throw new Error(`harness "${harness}" does not take ${tool} as a pre-tool call (${problems.join('; ')})`)
}
