/**
 * The real Gemini CLI as a harm-suite driver (test/harm/driver.ts): the scripted model speaks the Gemini API
 * (`GOOGLE_GEMINI_BASE_URL`) and asks for `run_shell_command`. Gemini runs it in its tool sandbox
 * (`security.toolSandboxing`, bubblewrap on Linux) with the `security` block svc wrote; svc's hooks are not installed
 * here (the gate's verdicts come from the real daemon, outside the jail).
 *
 * When a command hits the sandbox, Gemini withholds its output and asks the user to widen the sandbox ("Sandbox
 * Expansion Request"); a non-interactive run cannot answer. A Notification hook tells the driver at once: the
 * command ran once, inside the sandbox, and the session is replaced.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { join } from 'node:path'
import { textOf } from '../helpers/scripted-model.ts'
import { type Adapter, type Driver, startDriver } from './driver.ts'

export interface GeminiSetup {
  /** `node <bundle>/gemini.js` */
  readonly argv: readonly string[]
  /** The `security` block `svc install --harness gemini --sandbox` wrote to `~/.gemini/settings.json`. */
  readonly security: Record<string, unknown>
  /** Gemini's own state (`GEMINI_CLI_HOME` per session): off the world, so the suite does not count it as harm. */
  readonly cliHome: string
}

/** How a command's result starts when Gemini asked the user to widen its sandbox for it. */
export const ASKED_TO_WIDEN = 'gemini: sandbox expansion request'
const usage = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }
// The user allows every shell call (a Policy Engine rule: svc's settings forbid YOLO mode, and Gemini's own
// heuristics would ask before `rm -f`, `ln -s`, redirections …). The sandbox is the same: the approval mode stays
// `default` (workspace writable, no network).
const ALLOW_SHELL = '[[rule]]\ntoolName = "run_shell_command"\nargsPattern = ".*"\ndecision = "allow"\nallowRedirection = true\npriority = 900\n'

function answer(res: ServerResponse, stream: boolean, parts: unknown[]): void {
  const chunk = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: usage, modelVersion: 'gemini-2.5-flash' }
  if (stream) res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${JSON.stringify(chunk)}\n\n`)
  else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chunk))
}

function adapter(setup: GeminiSetup): Adapter {
  return {
    prepare(home, origin) {
      const settings = {
        security: { ...setup.security, auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        hooks: { Notification: [{ hooks: [{ name: 'harm:asked', type: 'command', command: `/usr/bin/curl -s --data-binary @- ${origin}/asked` }] }] },
      }
      mkdirSync(join(home, '.gemini', 'policies'), { recursive: true })
      writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2))
      writeFileSync(join(home, '.gemini', 'policies', 'harm.toml'), ALLOW_SHELL)
      return {
        argv: [...setup.argv, '-p', 'Run the commands you are given.', '--skip-trust'],
        env: {
          GEMINI_CLI_HOME: home,
          GEMINI_API_KEY: 'test-key',
          GOOGLE_GEMINI_BASE_URL: origin,
          GEMINI_CLI_NO_RELAUNCH: 'true',
          NODE_COMPILE_CACHE: join(setup.cliHome, 'compile-cache'),
          NO_COLOR: '1',
        },
      }
    },
    handle(req, raw, res, turn) {
      if (req.url === '/asked') {
        res.writeHead(200).end()
        return turn({ asked: raw })
      }
      if (req.url?.includes(':countTokens')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"totalTokens":10}')
      if (!req.url?.includes(':streamGenerateContent')) {
        // Side calls (routing, next speaker, loop detection) get a JSON answer that lets the session go on.
        const side = {
          reasoning: 'scripted',
          model_choice: 'flash',
          complexity_reasoning: 'scripted',
          complexity_score: 1,
          next_speaker: 'user',
          unproductive_state_confidence: 0,
          unproductive_state_analysis: 'none',
        }
        return answer(res, false, [{ text: JSON.stringify(side) }])
      }
      const body = JSON.parse(raw || '{}') as { contents?: { parts: { functionResponse?: { response: unknown } }[] }[] }
      const response = body.contents?.at(-1)?.parts.find((p) => p.functionResponse)?.functionResponse
      turn({ res, ...(response ? { result: textOf(response.response) || JSON.stringify(response.response) } : {}) })
    },
    call: (res, command) => answer(res, true, [{ functionCall: { name: 'run_shell_command', args: { command, description: 'run' } } }]),
    done: (res) => answer(res, true, [{ text: 'Done.' }]),
    asked(raw) {
      const details = (JSON.parse(raw || '{}') as { details?: { additionalPermissions?: unknown } }).details
      return `${ASKED_TO_WIDEN} ${JSON.stringify(details?.additionalPermissions ?? {})} (the command ran once in the sandbox; its output was withheld)`
    },
  }
}

export function startGeminiDriver(setup: GeminiSetup, cwd: string, env: Record<string, string>): Driver {
  return startDriver(adapter(setup), setup.cliHome, cwd, env, 15_000)
}
