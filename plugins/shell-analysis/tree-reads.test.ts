/** Which commands read a whole tree, and when that tree holds the home directory. */
import { describe, expect, it } from 'vitest'
import { readsHomeTree, treeReadRoots } from './tree-reads.ts'

const ctx = { home: '/home/dev', cwd: '/home/dev/proj' }
const roots = (cmd: string) => {
  const argv = cmd.split(' ')
  return treeReadRoots(argv[0]!, argv)
}

describe('tree reads', () => {
  it.each([
    ['grep -r x ~', ['~']],
    ['grep -rn -e x -e y src lib', ['src', 'lib']],
    ['grep --recursive x .', ['.']],
    ['rg x ~', []],
    ['rg --hidden x ~', ['~']],
    ['rg -uu x', []],
    ['tar czf out.tgz ~ /etc', ['~', '/etc']],
    ['tar -c -f out.tar dir', ['dir']],
    ['tar xzf in.tgz', []],
    ['zip -r out.zip ~', ['~']],
    ['zip out.zip a.txt', []],
    ['cp -r ~ /tmp/h', ['~']],
    ['cp a b', []],
    ['rsync -a ~/ /tmp/h', ['~/']],
    ['find ~ -type f -exec cat {} +', ['~']],
    ['find ~ -name x -exec ls {} +', []],
    ['find ~ -name x', []],
    ['ls -R ~', []],
  ])('%s reads %j', (cmd, expected) => {
    expect(roots(cmd)).toEqual(expected)
  })

  it('holds the home directory when a root is it or above it', () => {
    expect(readsHomeTree(['~'], ctx)).toBe(true)
    expect(readsHomeTree(['/'], ctx)).toBe(true)
    expect(readsHomeTree(['/home'], ctx)).toBe(true)
    expect(readsHomeTree(['..'], ctx)).toBe(true)
    expect(readsHomeTree(['.'], ctx)).toBe(false)
    expect(readsHomeTree(['/home/devel'], ctx)).toBe(false)
    expect(readsHomeTree(['~/proj'], ctx)).toBe(false)
  })
})
