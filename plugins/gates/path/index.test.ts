import { describe, it } from 'vitest'
import { runGateCases } from '../../../testing/gate-tester.ts'
import path from './index.ts'

runGateCases(
  path,
  {
    pass: [
      { value: '~/.ssh/id_*', request: { tool: 'Read', paths: ['/home/tester/.ssh/id_rsa.pub.bak/x'] } },
      { value: '~/.ssh/*', request: { tool: 'Read', paths: ['/home/other/.ssh/id_rsa'] } },
      { value: '/etc/*', request: { tool: 'Read', paths: ['/etc/ssh/sshd_config'] } },
      { value: '**/.env', request: { tool: 'Read', paths: ['/repo/.env.example'] } },
    ],
    flag: [
      { value: '~/.ssh/id_*', request: { tool: 'Read', paths: ['/home/tester/.ssh/id_ed25519'] } },
      { value: ['/etc/shadow', '/etc/**'], request: { tool: 'Read', paths: ['/tmp/x', '/etc/ssh/sshd_config'] } },
      { value: '**/.env', request: { tool: 'Read', paths: ['/repo/app/.env'] } },
      { value: '**/.env{,.*}', request: { tool: 'Read', paths: ['/repo/.env.local'] } },
    ],
    badConfig: [
      { value: '/etc/[abc', message: /unclosed "\["/ },
      { value: '$SVC_HOM/**', message: /unknown binding "\$SVC_HOM"/ },
      { value: ['~/.ssh/*', '${SVC_PORTS}/x'], message: /unknown binding "\$SVC_PORTS"/ },
    ],
  },
  { describe, it },
)
