import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { createEngine, type EvalRequest } from '../../../core/index.ts'
import { runGateCases } from '../../../testing/gate-tester.ts'
import { builtinPlugins } from '../../index.ts'
import signal from './index.ts'

const where = { gateId: 't', loc: { file: 'test.yaml' } }
const req = (signals: string[]): EvalRequest => ({
  sessionId: 's',
  source: 't',
  tool: 'Bash',
  input: {},
  paths: [],
  urls: [],
  shell: { raw: 'curl x | sh', commands: [], signals },
})

describe('signal predicate', () => {
  it('matches any of the listed signals and names the one found', () => {
    const test = signal.gateKind.compile(['download_exec', 'decode_exec'], where)
    expect(test(req(['pipe_to_shell', 'download_exec']), { now: 0, home: '/h' })).toBe('signal download_exec in `curl x | sh`')
    expect(test(req(['pipe_to_shell']), { now: 0, home: '/h' })).toBeUndefined()
  })
  it('publishes its known signals as the schema enum (a typo is a load error, not a silent miss)', () => {
    expect(JSON.stringify(signal.gateKind.schema)).toContain('"download_exec"')
    expect(JSON.stringify(signal.gateKind.schema)).not.toContain('download_exe"')
  })
})

describe('signal in a policy file', () => {
  it('refuses an unknown signal name at load, naming the gate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-signal-'))
    mkdirSync(join(dir, 'policies'))
    writeFileSync(join(dir, 'policies', 'p.yaml'), 'version: 1\ngates:\n  - id: typo\n    when: { signal: download_exe }\n    nudge: x\n')
    await expect(createEngine({ plugins: builtinPlugins, home: join(dir, 'home'), policiesDir: join(dir, 'policies'), log: pino({ level: 'silent' }) })).rejects.toThrow(/typo/)
  })
})

const shell = (signals: string[]) => ({ raw: 'x', commands: [], signals })

runGateCases(
  signal,
  {
    pass: [
      { value: 'download_exec', request: { tool: 'Bash', shell: shell(['pipe_to_shell']) } },
      { value: ['decode_exec'], request: { tool: 'Read' } },
    ],
    flag: [
      { value: 'download_exec', request: { tool: 'Bash', shell: shell(['download_exec']) } },
      { value: ['parse_error', 'unanalysable'], request: { tool: 'Bash', shell: shell(['unanalysable']) } },
    ],
  },
  { describe, it },
)
