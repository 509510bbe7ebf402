/**
 * What Claude Code's native `type: "http"` hook does, observed with the real binary (pinned devDependency)
 * against a scripted model and a stand-in hook server on loopback: whether a header may carry a secret from
 * the environment (`allowedEnvVars`), and what happens to the tool call when the hook URL does not answer, answers
 * an error status, or answers too late. `svc install` writes the shim unless asked for `--transport http`
 * because of the last three (issue 32).
 */
import { once } from 'node:events'
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { delimiter, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeAnthropic, type FakeAnthropic } from './helpers/fake-anthropic.ts'
import { tempDir } from './helpers/daemon.ts'
import { spawnBounded } from './helpers/spawn-bounded.ts'

const ROOT = new URL('..', import.meta.url).pathname
const CLAUDE = join(ROOT, 'node_modules/.bin/claude')
const PATH = `${join(ROOT, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}`

function runnable(): boolean {
  try {
    return existsSync(CLAUDE) && statSync(CLAUDE).size > 1_000_000
  } catch {
    return false
  }
}

let model: FakeAnthropic
let hookServer: Server
let hookUrl: string
let home: string
let configDir: string
let work: string
let answer: (res: ServerResponse) => void = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
const seen: IncomingMessage['headers'][] = []

function settings(url: string): void {
  const hook = { type: 'http', url, headers: { 'X-Svc-Key': '$SVC_HOOK_SECRET' }, allowedEnvVars: ['SVC_HOOK_SECRET'], timeout: 3 }
  writeFileSync(join(configDir, 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [hook] }] } }, null, 2))
}

const claude = (prompt: string) =>
  spawnBounded(CLAUDE, ['-p', prompt, '--allowedTools', 'Bash'], {
    cwd: work,
    env: {
      PATH,
      HOME: home,
      CLAUDE_CONFIG_DIR: configDir,
      NO_COLOR: '1',
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      SVC_HOOK_SECRET: 'the-secret',
    },
  })

describe.skipIf(!runnable())('Claude Code native HTTP hook (real binary)', () => {
  beforeAll(async () => {
    home = tempDir('svc-claude-http-')
    configDir = join(home, 'claude-config')
    work = join(home, 'work')
    mkdirSync(work, { recursive: true })
    mkdirSync(configDir)
    model = await startFakeAnthropic()
    hookServer = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        seen.push(req.headers)
        answer(res)
      })
    })
    hookServer.listen(0, '127.0.0.1')
    await once(hookServer, 'listening')
    hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/v1/hooks/claude-code/PreToolUse`
  }, 60_000)

  afterAll(async () => {
    await model?.close()
    hookServer?.closeAllConnections()
    hookServer?.close()
  })

  it('sends a header from an environment variable it is allowed to read, and obeys a deny', async () => {
    settings(hookUrl)
    answer = (res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'svc: no' } }))
    const marker = join(home, 'denied')
    expect((await claude(`RUN: touch ${marker}`)).code).toBe(0)
    expect(existsSync(marker)).toBe(false)
    expect(seen.at(-1)?.['x-svc-key']).toBe('the-secret')
  }, 120_000)

  // Each of these is the daemon being down, broken or slow: a command hook through the shim blocks all three.
  for (const [what, setup] of [
    ['the hook URL refuses connections', () => settings('http://127.0.0.1:9/v1/hooks/claude-code/PreToolUse')],
    [
      'the hook answers 500',
      () => {
        answer = (res) => res.writeHead(500).end('boom')
        settings(hookUrl)
      },
    ],
    [
      'the hook answers after its timeout',
      () => {
        answer = (res) => setTimeout(() => res.writeHead(200).end('{}'), 5000)
        settings(hookUrl)
      },
    ],
  ] as const) {
    it(`runs the tool when ${what} (fails open)`, async () => {
      setup()
      const marker = join(home, `ran-${what.replaceAll(' ', '-')}`)
      expect((await claude(`RUN: touch ${marker}`)).code).toBe(0)
      expect(existsSync(marker)).toBe(true)
    }, 120_000)
  }
})
