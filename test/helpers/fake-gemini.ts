/**
 * A scripted Gemini API on loopback (HARNESSES.md §10): speaks the streaming wire format of
 * `models/*:streamGenerateContent?alt=sse`, asks for exactly one tool call (the command after `RUN:` in
 * the user's prompt, or the MCP tool after `MCP:`), then ends the turn and records the tool result the CLI sent back.
 */
import { startScriptedServer } from './scripted-model.ts'

export interface FakeGemini {
  readonly url: string
  /** `functionResponse.response` objects the CLI sent back, in order. */
  readonly toolResults: unknown[]
  /** Paths of every request (to prove nothing else was asked). */
  readonly requests: string[]
  /** Function names the CLI declared to the model (its tools, MCP ones included). */
  readonly declared: Set<string>
  close(): Promise<void>
}

interface Part {
  text?: string
  functionCall?: unknown
  functionResponse?: { name: string; response: unknown }
}

function sse(res: import('node:http').ServerResponse, chunk: unknown): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  res.end(`data: ${JSON.stringify(chunk)}\n\n`)
}

const usage = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }

export async function startFakeGemini(): Promise<FakeGemini> {
  const toolResults: unknown[] = []
  const declared = new Set<string>()
  const server = await startScriptedServer((req, raw, res) => {
    const body = (raw ? JSON.parse(raw) : {}) as { contents?: { role: string; parts: Part[] }[]; tools?: { functionDeclarations?: { name: string }[] }[] }
    for (const t of body.tools ?? []) for (const f of t.functionDeclarations ?? []) declared.add(f.name)
    if (req.url?.includes(':countTokens')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: 10 }))
    const contents = body.contents ?? []
    const last = contents[contents.length - 1]
    const response = last?.parts.find((p) => p.functionResponse)?.functionResponse
    const stream = req.url?.includes(':streamGenerateContent')
    let parts: Part[]
    if (response) {
      toolResults.push(response.response)
      parts = [{ text: 'Done.' }]
    } else {
      const prompt = contents.flatMap((c) => c.parts.map((p) => p.text ?? '')).join('\n')
      const command = /RUN: (.+)/.exec(prompt)?.[1]
      // `MCP: <function name> <json args>` asks for an MCP tool the CLI declared.
      const mcp = /MCP: (\S+) (.+)/.exec(prompt)
      // Side calls (routing, next-speaker checks) get a plain JSON text answer.
      parts =
        mcp && stream
          ? [{ functionCall: { name: mcp[1], args: JSON.parse(mcp[2]!) } }]
          : command && stream
            ? [{ functionCall: { name: 'run_shell_command', args: { command } } }]
            : [{ text: '{"reasoning":"scripted","model_choice":"flash","complexity_reasoning":"scripted","complexity_score":1,"next_speaker":"user"}' }]
    }
    const chunk = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: usage, modelVersion: 'gemini-2.5-flash' }
    if (stream) return sse(res, chunk)
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chunk))
  })
  return { url: server.origin, toolResults, requests: server.requests, declared, close: server.close }
}
