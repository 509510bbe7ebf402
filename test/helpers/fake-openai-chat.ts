/**
 * A scripted OpenAI Chat Completions API on loopback (what Copilot CLI's BYOK `openai` provider and OpenCode's
 * `@ai-sdk/openai-compatible` provider speak: `POST …/chat/completions`, streamed as `data:` chunks). A turn whose
 * last user message carries `RUN: <command>` gets one call of the shell tool the request declares (`bash`); the
 * request that carries its `tool` message ends the turn, and that result is recorded (what the model would see:
 * a deny reason must arrive here). `MCP: <tool> <json>` calls a declared tool by name. Other requests get text.
 */
import type { ServerResponse } from 'node:http'
import { startScriptedServer, textOf } from './scripted-model.ts'

export interface FakeChat {
  /** Base URL ending in `/v1`. */
  readonly url: string
  /** Contents of the `tool` messages sent back, in order. */
  readonly toolResults: string[]
  readonly requests: string[]
  /** Tool names the last chat request declared. */
  readonly declared: Set<string>
  close(): Promise<void>
}

interface Message {
  role: string
  content?: unknown
}

function chunks(res: ServerResponse, model: string, delta: Record<string, unknown>, finish: string): void {
  const base = { id: `chatcmpl-${Date.now()}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model }
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }
  const events = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', ...delta }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }], usage },
  ]
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  res.end(`${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`)
}

function toolCall(res: ServerResponse, model: string, n: number, name: string, args: unknown): void {
  chunks(res, model, { content: null, tool_calls: [{ index: 0, id: `call_${n}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }] }, 'tool_calls')
}

function unquote(text: string): string {
  try {
    return String(JSON.parse(text))
  } catch {
    return text
  }
}

export async function startFakeChat(opts: { shellTool?: string } = {}): Promise<FakeChat> {
  const toolResults: string[] = []
  const declared = new Set<string>()
  let n = 0
  const server = await startScriptedServer((req, raw, res) => {
    if (req.method === 'GET' && req.url?.endsWith('/models'))
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"test-model","object":"model"}]}')
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions'))
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not here"}}')
    const body = (raw ? JSON.parse(raw) : {}) as { model?: string; stream?: boolean; messages?: Message[]; tools?: { function?: { name?: string } }[] }
    const model = body.model ?? 'test-model'
    const tools = (body.tools ?? []).map((t) => t.function?.name ?? '')
    if (tools.length) {
      declared.clear()
      for (const t of tools) declared.add(t)
    }
    const messages = body.messages ?? []
    const last = messages[messages.length - 1]
    // `opencode run` sends the prompt as a JSON string literal (quoted, inner quotes escaped).
    const said = textOf([...messages].reverse().find((m) => m.role === 'user')?.content ?? '')
    const prompt = /^".*"$/s.test(said) ? unquote(said) : said
    const text = (t: string) =>
      body.stream === false
        ? void res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              id: `chatcmpl-${++n}`,
              object: 'chat.completion',
              model,
              choices: [{ index: 0, message: { role: 'assistant', content: t }, finish_reason: 'stop' }],
            }),
          )
        : chunks(res, model, { content: t }, 'stop')
    if (last?.role === 'tool') {
      toolResults.push(textOf(last.content))
      return text('Done.')
    }
    // Side requests (titles, summaries) declare no tools: they get plain text.
    if (!tools.length) return text('A title')
    const command = /RUN: (.+)/.exec(prompt)?.[1]?.trim()
    if (command) {
      const shell = opts.shellTool ?? tools.find((t) => t === 'bash' || t === 'shell') ?? 'bash'
      return toolCall(res, model, ++n, shell, { command, description: 'scripted' })
    }
    const mcp = /MCP: (\S+) (\{.*\})/.exec(prompt)
    if (mcp && tools.includes(mcp[1]!)) {
      // A side request may quote the prompt with its JSON escaped: that is no call.
      const args = (() => {
        try {
          return JSON.parse(mcp[2]!) as unknown
        } catch {
          return undefined
        }
      })()
      if (args !== undefined) return toolCall(res, model, ++n, mcp[1]!, args)
    }
    return text('Nothing to run.')
  })
  return { url: `${server.origin}/v1`, toolResults, requests: server.requests, declared, close: server.close }
}
