/** The in-process plugin against stand-in shims: it throws (blocks) on a deny, on every failure of the shim, and without options. */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import svcPlugin from './plugin.ts'

function shim(script: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-oc-plugin-'))
  const path = join(dir, 'svc-hook')
  writeFileSync(path, `#!/bin/sh\n${script}\n`)
  chmodSync(path, 0o755)
  return path
}

const options = (path: string) => ({ shim: path, url: 'http://127.0.0.1:7878', install: 'abc' })
const call = { tool: 'bash', sessionID: 's', callID: 'c1' }

describe('svc OpenCode plugin', () => {
  it('sends the call to the shim and lets it through on {}', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-oc-seen-'))
    const hooks = await svcPlugin({ directory: '/w' }, options(shim(`printf '%s ' "$@" > ${dir}/argv; cat > ${dir}/stdin; printf '{}'`)))
    await hooks.config({ mcp: { fx: {} } })
    await hooks['tool.execute.before']({ ...call, tool: 'fx_echo' }, { args: { text: 'hi' } })
    expect(readFileSync(join(dir, 'argv'), 'utf8')).toBe('opencode tool_execute_before --url=http://127.0.0.1:7878 --svc-install=abc ')
    expect(JSON.parse(readFileSync(join(dir, 'stdin'), 'utf8'))).toEqual({
      tool: 'fx_echo',
      sessionID: 's',
      callID: 'c1',
      args: { text: 'hi' },
      cwd: '/w',
      mcp_server: 'fx',
      mcp_tool: 'echo',
    })
  })
  it('throws the reason on a deny', async () => {
    const hooks = await svcPlugin({}, options(shim(`cat >/dev/null; printf '{"decision":"deny","reason":"keys stay put"}'`)))
    await expect(hooks['tool.execute.before'](call, { args: {} })).rejects.toThrow('keys stay put')
  })
  it('fails closed: exit 2 with the shim’s reason, another exit, a non-JSON answer, a missing shim, no options', async () => {
    const down = await svcPlugin({}, options(shim('cat >/dev/null; echo "svc: the daemon did not answer" >&2; exit 2')))
    await expect(down['tool.execute.before'](call, { args: {} })).rejects.toThrow('svc: the daemon did not answer')
    const crashed = await svcPlugin({}, options(shim('exit 1')))
    await expect(crashed['tool.execute.before'](call, { args: {} })).rejects.toThrow(/exited 1/)
    const garbled = await svcPlugin({}, options(shim(`cat >/dev/null; printf 'allow'`)))
    await expect(garbled['tool.execute.before'](call, { args: {} })).rejects.toThrow(/not JSON/)
    const missing = await svcPlugin({}, options('/nonexistent/svc-hook'))
    await expect(missing['tool.execute.before'](call, { args: {} })).rejects.toThrow(/cannot run the hook shim/)
    const bare = await svcPlugin({}, undefined)
    await expect(bare['tool.execute.before'](call, { args: {} })).rejects.toThrow(/without its options/)
  })
  it('survives a shim that exits before reading a large call (the closed pipe is not an uncaught error)', async () => {
    const early = await svcPlugin({}, options(shim('echo "svc: cannot read the hook key" >&2; exit 2')))
    await expect(early['tool.execute.before'](call, { args: { content: 'x'.repeat(1 << 20) } })).rejects.toThrow('cannot read the hook key')
  })
  it('reports outcomes without blocking, even when the shim fails', async () => {
    const hooks = await svcPlugin({}, options(shim('exit 2')))
    await expect(hooks['tool.execute.after']({ ...call, args: {} }, { metadata: { exit: 0 } })).resolves.toBeUndefined()
  })
})
