/** A bare Fastify route that echoes a JSON body: the baseline bench/check compares svc against. */
import Fastify from 'fastify'

const app = Fastify({ bodyLimit: 1024 * 1024 })
app.post('/echo', async (request) => ({ verdict: 'allow', rule_id: '', reason: 'echo', ledger_seq: 0, body: request.body }))
const address = await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' })
process.stdout.write(`${address}\n`)
