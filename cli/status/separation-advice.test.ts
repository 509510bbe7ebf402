import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDir } from '../../test/helpers/temp.ts'
import type { StatusReport } from './collect.ts'
import { separationHowTo, separationProblems } from './separation-advice.ts'

const dir = tempDir('svc-separation-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const viaSocket = join(dir, 'socket.json')
const viaTcp = join(dir, 'tcp.json')
writeFileSync(viaSocket, '{"hooks":"~/.svc/bin/svc-hook claude-code PreToolUse --url=http://127.0.0.1:7878 --socket=/run/svc/hook.sock"}')
writeFileSync(viaTcp, '{"hooks":"~/.svc/bin/svc-hook claude-code PreToolUse --url=http://127.0.0.1:7878"}')

const report = (state: 'separate' | 'same-user', files: string[]) =>
  ({
    separation: { state, uid: 990, user: 'svc' },
    hooks: files.map((file) => ({ harness: 'claude-code', scope: 'user', file, entries: 3, missing: 0, urls: [], usesShim: true })),
  }) as unknown as StatusReport

describe('doctor on separation', () => {
  it('flags hooks of a separated daemon that still call its TCP port, and only those', () => {
    expect(separationProblems(report('separate', [viaSocket]), '/run/svc/hook.sock')).toEqual([])
    const [problem] = separationProblems(report('separate', [viaSocket, viaTcp]), '/run/svc/hook.sock')
    expect(problem!.what).toContain(`hooks in ${viaTcp} call its TCP port`)
    expect(problem!.hint).toContain('svc install')
    expect(separationProblems(report('same-user', [viaTcp]), '/run/svc/hook.sock'), 'under the same uid a socket adds nothing').toEqual([])
    expect(separationProblems(report('separate', [viaTcp]), undefined), 'no socket to call (a container’s daemon)').toEqual([])
  })

  it('says under --fix how to separate a daemon that runs as the developer, and nothing once separated', () => {
    expect(separationHowTo(report('same-user', []))).toContain('sudo svc service install --system --for $USER')
    expect(separationHowTo(report('separate', []))).toBeUndefined()
  })
})
