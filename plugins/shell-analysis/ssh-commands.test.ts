import { describe, expect, it } from 'vitest'
import { sshConfigCommands, sshOptionCommands } from './ssh-commands.ts'

describe('sshOptionCommands', () => {
  it('finds command keywords in every -o spelling, case-insensitive, with the argv index of the value', () => {
    expect(sshOptionCommands('ssh', ['ssh', '-o', 'ProxyCommand=nc %h %p', 'h']).commands).toEqual([{ text: 'nc %h %p', index: 2 }])
    expect(sshOptionCommands('ssh', ['ssh', '-oproxycommand nc x', 'h']).commands).toEqual([{ text: 'nc x', index: 1 }])
    expect(sshOptionCommands('ssh', ['ssh', '-vo', 'LocalCommand = touch x', 'h']).commands).toEqual([{ text: 'touch x', index: 2 }])
    expect(sshOptionCommands('ssh', ['ssh', '-o', 'KnownHostsCommand="/bin/kh %H"', 'h']).commands).toEqual([{ text: '/bin/kh %H', index: 2 }])
  })

  it('skips `none` and options that run nothing, and stops at --', () => {
    expect(sshOptionCommands('ssh', ['ssh', '-o', 'ProxyCommand=none', '-o', 'Port=22', '-p', '22', 'h']).commands).toEqual([])
    expect(sshOptionCommands('ssh', ['ssh', '--', 'h', '-o', 'ProxyCommand=x']).commands).toEqual([])
  })

  it('takes the programs scp and sftp start (scp -S, sftp -S/-D) and the -F file', () => {
    expect(sshOptionCommands('scp', ['scp', '-S', 'myssh', 'a', 'h:b']).commands).toEqual([{ text: 'myssh', index: 2 }])
    expect(sshOptionCommands('sftp', ['sftp', '-D/usr/lib/sftp-server', 'h']).commands).toEqual([{ text: '/usr/lib/sftp-server', index: 1 }])
    expect(sshOptionCommands('ssh', ['ssh', '-S', 'ctl', 'h']).commands).toEqual([])
    expect(sshOptionCommands('ssh', ['ssh', '-F', 'cfg', 'h']).config).toEqual({ text: 'cfg', index: 2 })
  })
})

describe('sshConfigCommands', () => {
  it('reads command keywords and Match exec, and reports Include', () => {
    const text = 'Host a\n  ProxyCommand nc %h %p\n  proxycommand=none\nMatch host b exec "test -f /x"\nHost c\n  LocalCommand echo hi\n'
    expect(sshConfigCommands(text)).toEqual({ commands: ['nc %h %p', 'test -f /x', 'echo hi'], includes: false })
    expect(sshConfigCommands('Include ~/.ssh/conf.d/*\n').includes).toBe(true)
  })
})
