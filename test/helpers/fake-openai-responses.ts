/**
 * A scripted OpenAI Responses API on loopback (the wire format Codex CLI speaks: `POST /v1/responses`
 * streaming server-sent events). The first request of a turn asks for exactly one shell call (the command
 * after `RUN:` in the user's prompt); the request that carries its `function_call_output` ends the turn, and
 * that output is recorded (it is what the model would see: a deny reason must arrive here).
 */
import { sendEvents, startScriptedServer, textOf } from './scripted-model.ts'

export interface FakeResponses {
  /** Base URL to configure as the provider's `base_url` (ends in `/v1`). */
  readonly url: string
  /** `function_call_output.output` texts Codex sent back, in order. */
  readonly toolOutputs: string[]
  /** `METHOD path` of every request. */
  readonly requests: string[]
  /** Tool names the last request offered the model. */
  toolNames(): string[]
  close(): Promise<void>
}

interface InputItem {
  type?: string
  role?: string
  content?: unknown
  output?: unknown
  call_id?: string
}

const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 }

export async function startFakeResponses(opts: { toolName?: string } = {}): Promise<FakeResponses> {
  const toolOutputs: string[] = []
  let lastTools: string[] = []
  let n = 0
  const server = await startScriptedServer((req, raw, res) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/responses')) return void res.writeHead(404).end()
    const body = (raw ? JSON.parse(raw) : {}) as { input?: InputItem[]; tools?: { name?: string; type?: string }[] }
    lastTools = (body.tools ?? []).map((t) => t.name ?? t.type ?? '?')
    const input = body.input ?? []
    const id = `resp_${++n}`
    const created = { type: 'response.created', response: { id } }
    const completed = { type: 'response.completed', response: { id, usage } }
    const last = input[input.length - 1]
    if (last?.type === 'function_call_output') {
      toolOutputs.push(textOf(last.output))
      const message = { type: 'message', role: 'assistant', id: `msg_${n}`, content: [{ type: 'output_text', text: 'Done.', annotations: [] }] }
      return sendEvents(res, [created, { type: 'response.output_item.done', output_index: 0, item: message }, completed])
    }
    const prompt = input
      .filter((i) => i.role === 'user')
      .map((i) => textOf(i.content))
      .join('\n')
    const command = /RUN: (.+)/.exec(prompt)?.[1]?.trim()
    if (!command) {
      const message = { type: 'message', role: 'assistant', id: `msg_${n}`, content: [{ type: 'output_text', text: 'Nothing to run.', annotations: [] }] }
      return sendEvents(res, [created, { type: 'response.output_item.done', output_index: 0, item: message }, completed])
    }
    const name = opts.toolName ?? 'shell'
    const args = name === 'exec_command' ? { cmd: command } : name === 'shell_command' ? { command } : { command: ['bash', '-lc', command] }
    const call = { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, name, arguments: JSON.stringify(args) }
    sendEvents(res, [created, { type: 'response.output_item.done', output_index: 0, item: call }, completed])
  })
  return { url: `${server.origin}/v1`, toolOutputs, requests: server.requests, toolNames: () => lastTools, close: server.close }
}
