import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { analyzeCommand } from './analyze.ts'
import { DiskReads, stillTrue } from './disk.ts'
import { AnalysisMemo } from './memo.ts'
import { loadBashParser, type BashParser } from './parser.ts'

let parser: BashParser
beforeAll(async () => {
  parser = await loadBashParser()
})

describe('AnalysisMemo', () => {
  it('answers a repeat from memory with what a fresh analysis gives, and analyses again once a file it read changed', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'svc-memo-unit-'))
    const opts = { parser, home: '/home/dev', cwd }
    const memo = new AnalysisMemo()
    writeFileSync(join(cwd, 'package.json'), '{"scripts":{"test":"vitest"}}')
    const first = memo.analyze('npm test', opts)
    expect(memo.analyze('npm test', opts)).toBe(first)
    expect(memo.stats()).toMatchObject({ hits: 1, misses: 1, size: 1 })
    writeFileSync(join(cwd, 'package.json'), '{"scripts":{"test":"rm -rf /"}}')
    const second = memo.analyze('npm test', opts)
    expect(second).toEqual(analyzeCommand('npm test', opts))
    expect(second.commands.map((c) => c.program)).toContain('rm')
    expect(memo.stats()).toMatchObject({ hits: 1, misses: 2, size: 1 })
  })

  it('hands out frozen analyses (one is shared by every call that repeats it)', () => {
    const memo = new AnalysisMemo()
    const a = memo.analyze('ls -la /tmp', { parser, home: '/home/dev', cwd: '/tmp' })
    expect(Object.isFrozen(a.commands[0]!.argv)).toBe(true)
  })

  it('keys by cwd, home and budget as well as the text', () => {
    const memo = new AnalysisMemo()
    memo.analyze('rm -rf x', { parser, home: '/home/a', cwd: '/tmp' })
    memo.analyze('rm -rf x', { parser, home: '/home/a', cwd: '/var' })
    memo.analyze('rm -rf x', { parser, home: '/home/b', cwd: '/tmp' })
    memo.analyze('rm -rf x', { parser, home: '/home/a', cwd: '/tmp', budget: { maxCommands: 3 } })
    expect(memo.stats()).toMatchObject({ hits: 0, misses: 4, size: 4 })
  })

  it('holds a bounded number of analyses, dropping the least recently used', () => {
    const memo = new AnalysisMemo()
    const opts = { parser, home: '/home/dev', cwd: '/tmp' }
    memo.analyze('echo kept', opts)
    for (let i = 0; i < 300; i++) {
      memo.analyze(`echo ${i}`, opts)
      if (i % 100 === 0) memo.analyze('echo kept', opts)
    }
    expect(memo.stats().size).toBe(256)
    const hits = memo.stats().hits
    memo.analyze('echo kept', opts)
    expect(memo.stats().hits).toBe(hits + 1)
    memo.analyze('echo 0', opts)
    expect(memo.stats().hits).toBe(hits + 1)
  })

  it('a file that changes while one analysis reads it twice makes that analysis unrepeatable (no single answer to re-check)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-memo-race-')), 'x.sh')
    writeFileSync(file, 'echo 1\n')
    const steady = new DiskReads()
    steady.text(file)
    steady.text(file)
    expect(steady.unrepeatable).toBe(false)
    expect(stillTrue(steady.observations())).toBe(true)
    const racing = new DiskReads()
    racing.text(file)
    writeFileSync(file, 'echo 2\n')
    racing.text(file)
    expect(racing.unrepeatable).toBe(true)
    expect(stillTrue(steady.observations())).toBe(false)
  })

  it('every file-system read of the analysis goes through disk.ts (so the memo can re-check it)', () => {
    const dir = new URL('.', import.meta.url).pathname
    // code-parsers.ts reads svc's own grammar files (node_modules), never what a command names.
    // caller-access.ts answers disk.ts's callerMay probe, recorded and re-checked like every other read.
    const exempt = new Set(['disk.ts', 'code-parsers.ts', 'caller-access.ts'])
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !exempt.has(f))) {
      const text = readFileSync(join(dir, file), 'utf8')
      expect(text, file).not.toMatch(/from 'node:fs'|\b(canonicalPath|pathSpellings|realpath\w*|lstat\w*|statSync|readFileSync|readdirSync|globSync|existsSync)\s*\(/)
    }
  })
})
