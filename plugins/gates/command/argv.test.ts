import { describe, expect, it } from 'vitest'
import { firstPositional, hasFlag } from './argv.ts'

describe('argv reading', () => {
  it('finds flags in short clusters and long options, not after --', () => {
    expect(hasFlag(['-rf'], 'f')).toBe(true)
    expect(hasFlag(['--force=yes'], 'force')).toBe(true)
    expect(hasFlag(['--force-with-lease'], 'force')).toBe(false)
    expect(hasFlag(['--', '-rf'], 'r')).toBe(false)
    expect(hasFlag(['--follow-tags'], 'f')).toBe(false)
  })
  it('skips global options that take values', () => {
    expect(firstPositional('git', ['-C', 'repo', '-c', 'a=b', 'push'])).toBe('push')
    expect(firstPositional('git', ['--no-pager', 'log'])).toBe('log')
    expect(firstPositional('kubectl', ['-n', 'prod', 'delete'])).toBe('delete')
    expect(firstPositional('x', ['--'])).toBeUndefined()
    expect(firstPositional('git', ['git', '-C', 'repo', 'push'], 1)).toBe('push')
  })
})
