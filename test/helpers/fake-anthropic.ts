/**
 * A scripted Anthropic Messages API on loopback (the wire format Claude Code speaks: `POST /v1/messages`,
 * streamed as server-sent events). A turn whose last user message carries the command after `RUN:` gets
 * one `Bash` tool use; the request that carries its `tool_result` ends the turn, and that result is
 * recorded (what the model would see: a deny reason must arrive here). Side requests get plain text.
 */
import type { ServerResponse } from 'node:http'
import { sendEvents, startScriptedServer, textOf } from './scripted-model.ts'

export interface FakeAnthropic {
  readonly url: string
  /** `tool_result` contents Claude Code sent back, as text, in order. */
  readonly toolResults: string[]
  readonly requests: string[]
  close(): Promise<void>
}

interface Block {
  type: string
  text?: string
  content?: unknown
  tool_use_id?: string
}

function stream(res: ServerResponse, model: string, block: Record<string, unknown>, delta: Record<string, unknown>, stop: string): void {
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
  const events = [
    { type: 'message_start', message: { id: `msg_${Date.now()}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } },
    { type: 'content_block_start', index: 0, content_block: block },
    { type: 'content_block_delta', index: 0, delta },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: 'message_stop' },
  ]
  sendEvents(res, events)
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const toolResults: string[] = []
  let n = 0
  const server = await startScriptedServer((req, raw, res) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages'))
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"not_found_error","message":"not here"}}')
    if (req.url.startsWith('/v1/messages/count_tokens')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":10}')
    const body = (raw ? JSON.parse(raw) : {}) as { model?: string; stream?: boolean; messages?: { role: string; content: string | Block[] }[] }
    const model = body.model ?? 'claude-test'
    // Newer Claude Code appends a `system` role message after the user's: the turn is the last user message.
    const last = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user')
    const blocks: Block[] = typeof last?.content === 'string' ? [{ type: 'text', text: last.content }] : (last?.content ?? [])
    const result = blocks.find((b) => b.type === 'tool_result')
    const command = /RUN: (.+)/
      .exec(
        blocks
          .filter((b) => b.type === 'text')
          .map((b) => b.text ?? '')
          .join('\n'),
      )?.[1]
      ?.trim()
    if (result) toolResults.push(textOf(result.content))
    if (!body.stream) {
      const message = {
        id: `msg_${++n}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      }
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(message))
    }
    if (command && !result) {
      return stream(
        res,
        model,
        { type: 'tool_use', id: `toolu_${++n}`, name: 'Bash', input: {} },
        { type: 'input_json_delta', partial_json: JSON.stringify({ command, description: 'scripted' }) },
        'tool_use',
      )
    }
    stream(res, model, { type: 'text', text: '' }, { type: 'text_delta', text: 'Done.' }, 'end_turn')
  })
  return { url: server.origin, toolResults, requests: server.requests, close: server.close }
}
