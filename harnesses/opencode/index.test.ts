import { describe, expect, it } from 'vitest'
import { harnessSuite } from '../../test/helpers/harness.ts'
import opencode from './index.ts'

const { h, fixture, parses, renders } = harnessSuite(opencode, import.meta.url)

describe('opencode parse', () => {
  it('maps the plugin’s bash payload onto Bash with OpenCode’s own call id', () => {
    expect(h.parse('tool_execute_before', fixture('tool_execute_before.bash'))).toEqual({
      kind: 'call',
      call: {
        source: 'opencode',
        tool: 'Bash',
        input: { command: 'cat ~/.ssh/id_rsa', description: 'scripted' },
        cwd: '/tmp/och/work',
        toolUseId: 'call_7',
        meta: { harness_session_id: 'ses_de3437a15ffeEyjDnhxmJDyM7V', native_tool: 'bash' },
      },
    })
  })
  parses(
    {
      'links tool_execute_after by the same call id': [
        ['tool_execute_after', fixture('tool_execute_after.bash'), { kind: 'outcome', outcome: 'ran', call: { toolUseId: 'call_7' } }],
      ],
      'maps edit onto Edit with an absolute file_path and Claude’s field names': [
        [
          'tool_execute_before',
          fixture('tool_execute_before.edit'),
          { kind: 'call', call: { tool: 'Edit', input: { file_path: '/home/u/app/src/a.ts', old_string: 'a', new_string: 'b' } } },
        ],
      ],
      'names MCP tools by the server the plugin resolved': [
        ['tool_execute_before', fixture('tool_execute_before.mcp'), { kind: 'call', call: { tool: 'mcp__fx__echo', input: { text: 'hi' } } }],
      ],
      'runs a command relative to its workdir': [
        [
          'tool_execute_before',
          { tool: 'bash', callID: 'c', args: { command: 'cat .env', workdir: '/srv/app' }, cwd: '/home/u' },
          { kind: 'call', call: { tool: 'Bash', cwd: '/srv/app' } },
        ],
      ],
      'ignores events it does not serve': [['tool.execute.before', { tool: 'bash' }, { kind: 'ignore' }]],
    },
    { partial: true },
  )
  it('refuses a payload without a tool', () => {
    expect(() => h.parse('tool_execute_before', { args: {} })).toThrow(/tool/)
  })
})

describe('opencode render', () => {
  renders({
    'denies with decision/reason for the plugin to throw': [
      [
        'tool_execute_before',
        { verdict: 'deny', ruleId: 'secrets.ssh-private-key', reason: 'keys stay put' },
        '{"decision":"deny","reason":"keys stay put [svc rule secrets.ssh-private-key]"}',
      ],
    ],
    'says nothing on allow and on outcomes': [
      ['tool_execute_before', { verdict: 'allow', ruleId: '', reason: '' }, '{}'],
      ['tool_execute_after', undefined, '{}'],
    ],
  })
})

describe('opencode config', () => {
  it('installs the plugin with its options into the user config', () => {
    const plan = h.installPlan({
      home: '/nonexistent-home',
      env: {},
      scope: 'user',
      shimPath: '/s/bin/svc-hook',
      daemonUrl: 'http://127.0.0.1:7878',
      installId: 'abc',
      failOpen: false,
      transport: 'command',
      readConfig: () => undefined,
      readText: () => undefined,
    })
    const [entry] = plan.entries
    expect(entry).toMatchObject({ file: '/nonexistent-home/.config/opencode/opencode.json', pointer: ['plugin'] })
    const value = (entry as { value: [string, object] }).value
    expect(value[0]).toMatch(/^file:\/\/.*\/harnesses\/opencode\/plugin\.ts$/)
    expect(value[1]).toEqual({ shim: '/s/bin/svc-hook', url: 'http://127.0.0.1:7878', install: 'abc' })
    expect(h.isOurs(value, 'abc')).toBe(true)
    expect(h.isOurs(['opencode-wakatime', {}], 'abc')).toBe(false)
  })
  it('reads local (argv) and remote MCP servers, names only', () => {
    const text =
      '{ "mcp": { "fx": { "type": "local", "command": ["node", "s.js"], "environment": { "T": "secret" } }, "docs": { "type": "remote", "url": "https://x.example/mcp", "headers": { "Authorization": "Bearer x" } } } }'
    const servers = h.mcpServers({ home: '/h', env: { XDG_CONFIG_HOME: '/cfg' } }, (p) => (p === '/cfg/opencode/opencode.json' ? text : undefined))
    expect(servers).toEqual([
      { name: 'fx', harness: 'opencode', file: '/cfg/opencode/opencode.json', transport: 'stdio', command: 'node', args: ['s.js'], envNames: ['T'] },
      { name: 'docs', harness: 'opencode', file: '/cfg/opencode/opencode.json', transport: 'http', url: 'https://x.example/mcp', headerNames: ['Authorization'] },
    ])
  })
})
