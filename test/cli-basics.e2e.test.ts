/**
 * How the CLI behaves as a tool: commands listed without being loaded (and their summaries true), usage errors
 * as one line and a hint, --version with the commit, flags a command ignores refused, secrets piped line by
 * line (never required as arguments), terminal logs readable and without ANSI when colour is off, the LICENSE.
 */
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { generateSync } from 'otplib'
import { afterAll, describe, expect, it } from 'vitest'
import { commands, requestedCommands } from '../cli/commands/index.ts'
import { humanLine } from '../cli/daemon/log.ts'
import { processIo } from '../cli/io.ts'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { startTestDaemon } from './helpers/daemon.ts'
import { runCli } from './helpers/run-cli.ts'
import { compileCache } from './helpers/child-env.ts'

const SVC = join(PROJECT_ROOT, 'cli', 'svc.sh')
const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function piped(args: string[], input: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(SVC, args, { env: { PATH: process.env.PATH, ...compileCache(), ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d))
    child.stderr.on('data', (d: Buffer) => (stderr += d))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(input)
  })
}

describe('svc as a command-line tool', () => {
  it('lists every command without loading it, and each summary is the loaded command’s own description', async () => {
    for (const entry of commands) expect((await entry.load())(processIo).description(), entry.name).toBe(entry.summary)
    expect([...requestedCommands(['--help'])]).toEqual([])
    expect([...requestedCommands(['help', 'session'])]).toEqual(['help', 'session'])
    expect([...requestedCommands(['session', 'create', '--tier', 'x'])]).toEqual(['session'])
    const help = await runCli(['--help'], {})
    for (const entry of commands) expect(help.stdout).toContain(`  ${entry.name}`)
  })

  it('a usage error is one line and a hint, exit 2, not the whole help', async () => {
    const res = await runCli(['session', 'create'], {})
    expect(res.code).toBe(2)
    expect(res.stderr).toBe("error: required option '--tier <tier>' not specified\nhint: see `svc session create --help`\n")
    const unknown = await runCli(['uninstall', '--tier', 'software'], {})
    expect(unknown).toMatchObject({ code: 2, stderr: "error: unknown option '--tier'\nhint: see `svc uninstall --help`\n" })
  })

  it('--version names the commit the checkout is at', async () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim()
    const version = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version as string
    expect((await runCli(['--version'], {})).stdout).toBe(`svc ${version} (commit ${head.slice(0, 12)})\n`)
  })

  it('TOTP secrets piped line by line: enroll (passphrase) and mint (passphrase, then code), no argument needed', async () => {
    const daemon = await startTestDaemon()
    dirs.push(daemon.home)
    const env = { HOME: daemon.home, SVC_HOME: daemon.home, SVC_URL: daemon.url }
    try {
      const enrolled = await piped(['signer', 'enroll', '--tier', 'totp'], 'long enough passphrase\n', env)
      expect(enrolled.code, enrolled.stderr).toBe(0)
      const secret = new URL(/otpauth:\/\/\S+/.exec(enrolled.stdout)![0]).searchParams.get('secret')!
      const code = generateSync({ secret, epoch: Math.floor(Date.now() / 1000) })
      const minted = await piped(['session', 'create', '--tier', 'totp'], `long enough passphrase\n${code}\n`, env)
      expect(minted.code, minted.stderr).toBe(0)
      expect(JSON.parse(minted.stdout)).toMatchObject({ signer: 'totp' })
      const missing = await piped(['session', 'create', '--tier', 'totp'], 'long enough passphrase\n', env)
      expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('--tier totp needs the signer passphrase and a current 6-digit code') })
    } finally {
      await daemon.stop()
    }
  })

  it('daemon log lines on a terminal: readable, coloured only when asked', () => {
    const record = { level: 40, time: Date.UTC(2026, 0, 1, 12, 0, 1), pid: 1, hostname: 'h', name: 'svc', msg: 'session expired', session: 'ses_1', why: 'idle for 30m' }
    const plain = humanLine(record, false)
    expect(plain).toMatch(/^\d\d:\d\d:\d\d WARN {2}session expired {2}session=ses_1 why="idle for 30m"\n$/)
    expect(plain).not.toContain('\x1b[')
    expect(humanLine(record, true)).toContain('\x1b[33mWARN ')
  })

  it('ships a LICENSE that matches package.json', () => {
    expect(JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).license).toBe('Apache-2.0')
    const license = readFileSync(join(PROJECT_ROOT, 'LICENSE'), 'utf8')
    expect(license).toMatch(/^\s*Apache License\n\s*Version 2\.0, January 2004\n\s*http:\/\/www\.apache\.org\/licenses\/\n/)
    expect(license).toContain('END OF TERMS AND CONDITIONS')
  })
})
