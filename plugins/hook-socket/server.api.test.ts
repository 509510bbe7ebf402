import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import pino from 'pino'
import { afterAll, describe, expect, it } from 'vitest'
import { socketDirProblem, startHookSocket } from './server.ts'

const dir = mkdtempSync(join(tmpdir(), 'svc-hook-socket-'))
chmodSync(dir, 0o755)
const log = pino({ level: 'silent' })
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function app() {
  const a = Fastify()
  a.post('/v1/hooks/:harness/:event', async (req) => ({ hook: (req.params as { harness: string }).harness }))
  a.get('/v1/health', async () => ({ status: 'ok' }))
  a.get('/v1/sessions', async () => ({ sessions: [] }))
  return a
}

function call(socketPath: string, method: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers: { host: 'localhost', 'content-type': 'application/json' } }, (res) => {
      let body = ''
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
    })
    req.on('error', reject)
    req.end(method === 'POST' ? '{}' : undefined)
  })
}

describe('the hook socket', () => {
  it('serves the hook routes and health through the app, nothing else, on a 0666 socket', async () => {
    const path = join(dir, 'hook.sock')
    const a = app()
    const running = await startHookSocket(a, path, log)
    try {
      expect(statSync(path).mode & 0o777).toBe(0o666)
      expect(await call(path, 'POST', '/v1/hooks/claude-code/PreToolUse')).toEqual({ status: 200, body: '{"hook":"claude-code"}' })
      expect((await call(path, 'GET', '/v1/health')).status).toBe(200)
      const other = await call(path, 'GET', '/v1/sessions')
      expect(other.status).toBe(404)
      expect(JSON.parse(other.body)).toMatchObject({ code: 'not_found' })
    } finally {
      await running.stop()
      await a.close()
    }
  })

  it('refuses a directory others could write, another account’s, a relative path, and a file that is not a socket', async () => {
    const open = join(dir, 'open')
    rmSync(open, { force: true, recursive: true })
    mkdirSync(open)
    chmodSync(open, 0o777)
    expect(socketDirProblem(open, process.getuid!())).toMatch(/writable by others \(mode 777\)/)
    expect(socketDirProblem(dir, process.getuid!() + 1)).toMatch(/belongs to uid/)
    await expect(startHookSocket(app(), join(open, 'hook.sock'), log)).rejects.toThrow(/writable by others/)
    await expect(startHookSocket(app(), 'hook.sock', log)).rejects.toThrow(/absolute path/)
    writeFileSync(join(dir, 'plain'), '')
    await expect(startHookSocket(app(), join(dir, 'plain'), log)).rejects.toThrow(/something other than a socket/)
  })
})
