import { it, expect } from 'vitest'
import { startTestDaemon } from './helpers/daemon.ts'
it('probe', async () => {
  const d = await startTestDaemon()
  await d.session()
  const send = async (path: string, body: string, ct = 'application/json') => { const r = await fetch(d.url + path, { method: 'POST', headers: { 'content-type': ct }, body }); return `${r.status} ${r.headers.get('x-svc-hook')} ${(await r.text()).slice(0, 250)}` }
  console.log(await send('/v1/hooks/claude-code/PreToolUse', '{"tool_name":"Bash","tool_input":{"command":"ls \\ud800"},"tool_use_id":"a"}'))
  console.log(await send('/v1/hooks/claude-code/PreToolUse', '{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"\\ud800"}'))
  console.log(await send('/v1/hooks/claude-code/PreToolUse', '{"tool_name":"Bash", "tool_input":'))
  console.log(await send('/v1/hooks/claude-code/PreToolUse', 'hi', 'text/plain'))
  console.log(await send('/v1/hooks/claude-code/PreToolUse', '{"tool_input":{}}'))
  console.log(await send('/v1/hooks/claude-code/PostToolUse', '{"tool_input":{}}'))
  console.log(await send('/v1/hooks/gemini/BeforeTool', '{"tool_name":"\\ud800","tool_input":{"command":"ls"}}'))
  console.log(await send('/v1/gates/check', JSON.stringify({session_id: 'x', source: 's', tool: 'Bash', input: {}}).replace('"x"', '"\\ud800"')))
  console.log(await send('/v1/gates/check', '{"session_id":"x","source":"\\ud800","tool":"Bash","input":{}}'))
  console.log(await send('/v1/mcp/pin/check', '{"server":"\\ud800"}'))
  console.log(await send('/v1/sessions/create', '{"signer":"unattested","user_id":"\\ud800"}'))
  const e = await d.request('GET', '/v1/ledger/entries')
  console.log(JSON.stringify(e.body).slice(-1500))
  await d.stop()
})
