import { describe, it } from 'vitest'
import { runGateCases } from '../../../testing/gate-tester.ts'
import url from './index.ts'

const u = (scheme: string, host: string, port?: number) => ({ raw: `${scheme}://${host}`, scheme, host, ...(port ? { port } : {}) })

runGateCases(
  url,
  {
    pass: [
      { value: { host: '*.evil.example' }, request: { tool: 'WebFetch', urls: [u('https', 'evil.example.com')] } },
      { value: { scheme: 'http' }, request: { tool: 'WebFetch', urls: [u('https', 'example.com', 443)] } },
      { value: { host: '127.0.0.1', port: 7878 }, request: { tool: 'WebFetch', urls: [u('http', '127.0.0.1', 8080)] } },
      { name: '$SVC_PORTS is 7878/7879 when the context binds nothing', value: { port: '$SVC_PORTS' }, request: { tool: 'WebFetch', urls: [u('http', '127.0.0.1', 9000)] } },
      {
        name: '$SVC_PORTS is only what the context binds',
        value: { port: '$SVC_PORTS' },
        request: { tool: 'WebFetch', urls: [u('http', '127.0.0.1', 3000)] },
        ctx: { svcPorts: [7878, 7879, 9000] },
      },
      { name: 'no port, no match', value: { port: ['$SVC_PORTS'] }, request: { tool: 'WebFetch', urls: [u('http', '127.0.0.1')] } },
    ],
    flag: [
      { value: { host: '*.evil.example' }, request: { tool: 'WebFetch', urls: [u('https', 'a.evil.example')] } },
      { value: { host: ['127.0.0.1', '::1', 'localhost'], port: [7878, 7879] }, request: { tool: 'WebFetch', urls: [u('http', '::1', 7879)] } },
      { value: { scheme: ['http', 'ftp'] }, request: { tool: 'WebFetch', urls: [u('ftp', 'x.example', 21)] } },
      { name: '$SVC_PORTS defaults to 7878/7879', value: { port: '$SVC_PORTS' }, request: { tool: 'WebFetch', urls: [u('http', '127.0.0.1', 7879)] } },
      {
        name: '$SVC_PORTS follows the context',
        value: { port: '$SVC_PORTS' },
        request: { tool: 'WebFetch', urls: [u('http', 'localhost', 9000)] },
        ctx: { svcPorts: [7878, 7879, 9000] },
      },
      {
        name: '$SVC_PORTS next to fixed ports',
        value: { port: [8443, '$SVC_PORTS'] },
        request: { tool: 'WebFetch', urls: [u('https', 'x.example', 8443)] },
        ctx: { svcPorts: [9000] },
      },
    ],
    badConfig: [{ value: { host: 'a{b' }, message: /unclosed/ }],
  },
  { describe, it },
)
