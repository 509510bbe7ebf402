/**
 * `svc top` (the ink TUI) rendered with ink-testing-library against a real daemon: the live view shows a
 * decision recorded after it started, keys switch views and open a decision (redacted call, policy trace),
 * `f` writes a false-positive case through the CLI's own code, `a` accepts a waiting MCP pin after the
 * operator password typed at the hidden prompt, and hostile strings never reach the screen as control bytes.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { render } from 'ink-testing-library'
import { createElement } from 'react'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TopApp } from '../cli/top/app.ts'
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'
import { waitFor } from './helpers/wait.ts'

let d: TestDaemon
let sid: string
const check = (command: string) => d.request('POST', '/v1/gates/check', { session_id: sid, source: 'claude-code', tool: 'Bash', input: { command }, cwd: '/tmp' })

beforeAll(async () => {
  d = await startTestDaemon()
  sid = await d.session()
})
afterAll(async () => d?.stop())

// ink writes frames asynchronously; each key press is written as the terminal would send it.
const KEY = { down: '\u001b[B', enter: '\r', esc: '\u001b', tab: '\t' }

function top(env: NodeJS.ProcessEnv = {}) {
  const svcHome = tempDir()
  const app = render(createElement(TopApp, { url: d.url, env, userHome: '/home/nobody', svcHome, filter: {}, intervalMs: 50 }))
  const frame = () => app.lastFrame() ?? ''
  const until = (what: string, ok: (f: string) => boolean) => waitFor(() => ok(frame()), `${what}; last frame:\n${frame()}`, 10_000)
  return { app, frame, until, svcHome, press: (k: string) => app.stdin.write(k) }
}

describe('svc top', () => {
  it('needs a terminal, and says what to use instead', async () => {
    const r = await runCli(['top'], { HOME: tempDir(), SVC_URL: d.url })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('svc top needs a terminal; for pipes and scripts use `svc tail`')
  })

  it('shows decisions live, opens one with its redacted call and policy trace, and switches views by key', async () => {
    const t = top()
    try {
      await t.until('the header', (f) => f.includes('svc firewall') && f.includes('UNATTESTED'))
      const denied = await check('rm -rf / # TOKEN=sk-ant-abcdefghijklmnopqrstuvwxyz0123')
      await t.until('the new deny', (f) => f.includes(String(denied.body.ledger_seq)) && f.includes('fs.rm-root-or-home'))
      expect(t.frame()).not.toContain('sk-ant-abcdefghijklmnopqrstuvwxyz0123')
      t.press(KEY.enter)
      await t.until('the decision detail', (f) => f.includes(`decision ${denied.body.ledger_seq}`) && f.includes('policy trace'))
      expect(t.frame()).toMatch(/> daemon\s+deny\s+fs\.rm-root-or-home.*\(decided\)/)
      expect(t.frame()).toContain('[REDACTED]')
      t.press(KEY.esc)
      await t.until('the list again', (f) => f.includes('Enter open'))
      t.press('2')
      await t.until('the gates view', (f) => /fs\.rm-root-or-home\s+daemon\s+deny\s+1 hits/.test(f))
      t.press(KEY.tab)
      await t.until('the sessions view', (f) => f.includes(sid) && f.includes('allow 0 deny 1'))
      t.press('5')
      await t.until('the ledger view', (f) => f.includes('tree size') && f.includes('session_created'))
      t.press('\u001b[D')
      await t.until('back to MCP pins with ←', (f) => f.includes('a accept pin'))
    } finally {
      t.app.unmount()
    }
  })

  it('filters by text and by verdict', async () => {
    const echo = await check('echo filter-me-please')
    const rm = await check('rm -rf / other')
    const t = top()
    try {
      await t.until('both', (f) => f.includes('filter-me-please') && f.includes('rm -rf / other'))
      // Newest first: j selects the older echo, k the rm again.
      t.press('j')
      await new Promise((r) => setTimeout(r, 100))
      t.press(KEY.enter)
      await t.until('the echo opened', (f) => f.includes(`decision ${echo.body.ledger_seq} `))
      t.press(KEY.esc)
      await t.until('the list', (f) => f.includes('Enter open'))
      t.press('k')
      await new Promise((r) => setTimeout(r, 100))
      t.press(KEY.enter)
      await t.until('the rm opened', (f) => f.includes(`decision ${rm.body.ledger_seq} `))
      t.press(KEY.esc)
      await t.until('the list', (f) => f.includes('Enter open'))
      t.press('/')
      for (const ch of 'filter-me') t.press(ch)
      t.press(KEY.enter)
      await t.until('only the echo', (f) => f.includes('filter-me-please') && !f.includes('rm -rf / other') && f.includes('filter "filter-me"'))
      t.press(KEY.esc)
      await t.until('the filter cleared', (f) => !f.includes('filter "filter-me"'))
      t.press('v')
      await t.until('only denies', (f) => f.includes('verdict=deny') && f.includes('rm -rf / other') && !f.includes('filter-me-please'))
    } finally {
      t.app.unmount()
    }
  })

  it('makes hostile strings inert: no escape sequence, CR, BEL or RTL override reaches the screen', async () => {
    const hostile = await check('echo \u001b]0;pw\u0007\u001b[2J\rX\u202eexe\u009b1m')
    const t = top()
    try {
      await t.until('the hostile call', (f) => f.includes('echo \\x1b]0;pw\\x07\\x1b[2J'))
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the test checks that no control character reaches the screen
      expect(t.frame()).not.toMatch(/[\u0007\r\u202e\u009b]|\u001b\]|\u001b\[2J/)
      t.press(KEY.enter)
      await t.until('its detail', (f) => f.includes(`decision ${hostile.body.ledger_seq}`) && f.includes('command  echo \\x1b]0;pw\\x07\\x1b[2J\\rX\\u202eexe\\x9b1m'))
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the test checks that no control character reaches the screen
      expect(t.frame()).not.toMatch(/[\u0007\r\u202e\u009b]|\u001b\]|\u001b\[2J/)
    } finally {
      t.app.unmount()
    }
  })

  it('starts a false-positive case from a deny with the CLI code, into $SVC_HOME/cases/<seq>', async () => {
    const denied = await check('rm -rf / fp-case')
    const t = top()
    try {
      await t.until('the deny', (f) => f.includes('fp-case'))
      t.press('f')
      const dir = join(t.svcHome, 'cases', String(denied.body.ledger_seq))
      await t.until('the case written', (f) => f.includes(`wrote case ${denied.body.ledger_seq}`) && f.includes('svc false-positive apply'))
      expect(JSON.parse(readFileSync(join(dir, 'bundle.json'), 'utf8')).event.seq).toBe(denied.body.ledger_seq)
      expect(existsSync(join(dir, 'replacement.yaml'))).toBe(true)
    } finally {
      t.app.unmount()
    }
  })

  it('accepts a waiting MCP pin with operator rights, asking for the password without echoing it', async () => {
    await d.request('POST', '/v1/mcp/pin/check', { server: 'tui-server', identity: { transport: 'stdio', command: 'node srv.js \u001b[31m' } })
    const t = top()
    try {
      t.press('4')
      await t.until('the queued pin', (f) => f.includes('tui-server') && f.includes('queued'))
      t.press('a')
      await t.until('the password prompt', (f) => f.includes('operator password'))
      for (const ch of 'correct horse battery') t.press(ch)
      expect(t.frame()).not.toContain('correct horse')
      t.press(KEY.enter)
      await t.until('the pin accepted', (f) => /pinned tui-server at sha256:/.test(f))
      expect((await d.request('GET', '/v1/mcp/pins')).body.servers.find((s: { server: string }) => s.server === 'tui-server').state).toBe('pinned')
      expect(t.frame()).not.toContain('correct horse')
    } finally {
      t.app.unmount()
    }
  })

  it('says so when the password is wrong, and changes nothing', async () => {
    await d.request('POST', '/v1/mcp/pin/check', { server: 'tui-wrong', identity: { transport: 'stdio', command: 'x' } })
    const t = top()
    try {
      t.press('4')
      await t.until('the queued pin', (f) => f.includes('tui-wrong'))
      t.press('/')
      for (const ch of 'tui-wrong') t.press(ch)
      t.press(KEY.enter)
      await t.until('only that server', (f) => f.includes('filter "tui-wrong"') && !f.includes('tui-server'))
      t.press('a')
      await t.until('the password prompt', (f) => f.includes('operator password'))
      for (const ch of 'wrong') t.press(ch)
      t.press(KEY.enter)
      await t.until('the failure', (f) => f.includes('operator login failed'))
      expect((await d.request('GET', '/v1/mcp/pins')).body.servers.find((s: { server: string }) => s.server === 'tui-wrong').state).toBe('queued')
    } finally {
      t.app.unmount()
    }
  })
})
