/** A daemon under its own account (`svc daemon --user`): a kill by name or pattern cannot reach it; a kill of everything still counts. */
import { beforeAll, describe, expect, it } from 'vitest'
import { analyzeCommand } from './analyze.ts'
import { loadBashParser, type BashParser } from './parser.ts'

let parser: BashParser
beforeAll(async () => {
  parser = await loadBashParser()
})

const signals = (raw: string, daemonAccount?: string) =>
  analyzeCommand(raw, { parser, home: '/home/dev', cwd: '/home/dev/proj', ...(daemonAccount ? { daemonAccount } : {}) }).signals

describe('kills that reach the daemon', () => {
  it.each(['pkill node', 'killall node', 'pkill -f "node.*daemon"', 'kill $(pgrep -f daemon)', 'pkill nodejs'])(
    'flags %s while the daemon runs as the developer, not once it runs as its own account',
    (raw) => {
      expect(signals(raw)).toContain('daemon_pattern')
      expect(signals(raw, 'svc')).not.toContain('daemon_pattern')
    },
  )

  it.each(['kill -9 -1', 'pkill -u "$USER"', 'killall -u dev'])('flags %s either way (every process of the user)', (raw) => {
    expect(signals(raw)).toContain('daemon_pattern')
    expect(signals(raw, 'svc')).toContain('daemon_pattern')
  })
})
