import { describe, it } from 'vitest'
import { runGateCases } from '../../../core/testing/gate-tester.ts'
import url from './index.ts'

const u = (scheme: string, host: string, port?: number) => ({ raw: `${scheme}://${host}`, scheme, host, ...(port ? { port } : {}) })

runGateCases(
  url,
  {
    pass: [
      { value: { host: '*.evil.example' }, request: { tool: 'WebFetch', urls: [u('https', 'evil.example.com')] } },
      { value: { scheme: 'http' }, request: { tool: 'WebFetch', urls: [u('https', 'example.com', 443)] } },
      { value: { host: '127.0.0.1', port: 7878 }, request: { tool: 'WebFetch', urls: [u('http', '127.0.0.1', 8080)] } },
    ],
    flag: [
      { value: { host: '*.evil.example' }, request: { tool: 'WebFetch', urls: [u('https', 'a.evil.example')] } },
      { value: { host: ['127.0.0.1', '::1', 'localhost'], port: [7878, 7879] }, request: { tool: 'WebFetch', urls: [u('http', '::1', 7879)] } },
      { value: { scheme: ['http', 'ftp'] }, request: { tool: 'WebFetch', urls: [u('ftp', 'x.example', 21)] } },
    ],
    badConfig: [{ value: { host: 'a{b' }, message: /unclosed/ }],
  },
  { describe, it },
)
