/**
 * The real GitHub Copilot CLI as a harm-suite driver (test/harm/driver.ts): BYOK (`COPILOT_PROVIDER_BASE_URL`, with
 * `COPILOT_OFFLINE=true`) points it at the scripted model, which speaks Chat Completions and asks for its `bash`
 * tool. Copilot runs the command in its sandbox (Microsoft Execution Containers: bubblewrap plus a private network
 * namespace through slirp4netns and iptables on Linux) with the `sandbox` block svc wrote; svc's hooks are not
 * installed here. Its state goes to `COPILOT_HOME` and the XDG directories on the jail's /tmp, off the world.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { join } from 'node:path'
import { textOf } from '../helpers/scripted-model.ts'
import { type Adapter, type Driver, startDriver } from './driver.ts'

export interface CopilotSetup {
  /** The native binary. */
  readonly argv: readonly string[]
  /** The `sandbox` block `svc install --harness copilot-cli --sandbox` wrote to `~/.copilot/settings.json`. */
  readonly sandbox: Record<string, unknown>
  readonly state: string
}

function chunks(res: ServerResponse, delta: Record<string, unknown>, finish: string): void {
  const base = { id: `chatcmpl-${Date.now()}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: 'gpt-4.1' }
  const events = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', ...delta }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
  ]
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  res.end(`${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`)
}

function adapter(setup: CopilotSetup): Adapter {
  const text = (res: ServerResponse, stream: boolean, t: string) =>
    stream
      ? chunks(res, { content: t }, 'stop')
      : res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'chatcmpl-x',
            object: 'chat.completion',
            model: 'gpt-4.1',
            choices: [{ index: 0, message: { role: 'assistant', content: t }, finish_reason: 'stop' }],
          }),
        )
  return {
    prepare(home, origin) {
      mkdirSync(home, { recursive: true })
      writeFileSync(join(home, 'settings.json'), JSON.stringify({ banner: 'never', sandbox: setup.sandbox }, null, 2))
      const tmp = (d: string) => join(setup.state, d)
      return {
        // The user allows every tool and path (Copilot's own approvals are not the sandbox).
        argv: [...setup.argv, '-p', 'Run the commands you are given.', '--allow-all-tools', '--allow-all-paths', '--no-auto-update'],
        env: {
          COPILOT_HOME: home,
          COPILOT_CACHE_HOME: tmp('cache'),
          COPILOT_PKG_CACHE_HOME: tmp('pkg'),
          XDG_CACHE_HOME: tmp('xdg-cache'),
          XDG_STATE_HOME: tmp('xdg-state'),
          XDG_DATA_HOME: tmp('xdg-data'),
          XDG_CONFIG_HOME: tmp('xdg-config'),
          COPILOT_OFFLINE: 'true',
          COPILOT_PROVIDER_BASE_URL: `${origin}/v1`,
          COPILOT_PROVIDER_API_KEY: 'test-key',
          COPILOT_MODEL: 'gpt-4.1',
          NO_COLOR: '1',
        },
      }
    },
    handle(req, raw, res, turn) {
      if (req.method === 'GET' && req.url?.endsWith('/models'))
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"gpt-4.1","object":"model"}]}')
      const body = JSON.parse(raw || '{}') as { stream?: boolean; messages?: { role: string; content?: unknown }[]; tools?: unknown[] }
      // Side requests (titles, summaries) declare no tools.
      if (!body.tools?.length) return text(res, body.stream !== false, 'A title')
      const last = body.messages?.at(-1)
      turn({ res, ...(last?.role === 'tool' ? { result: textOf(last.content) } : {}) })
    },
    call: (res, command, n) =>
      chunks(
        res,
        { content: null, tool_calls: [{ index: 0, id: `call_${n}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command, description: 'run' }) } }] },
        'tool_calls',
      ),
    done: (res) => chunks(res, { content: 'Done.' }, 'stop'),
  }
}

export function startCopilotDriver(setup: CopilotSetup, cwd: string, env: Record<string, string>): Driver {
  return startDriver(adapter(setup), join(setup.state, 'sessions'), cwd, env, 15_000)
}
