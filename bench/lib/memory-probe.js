/**
 * Preloaded into a daemon by benchmarks (`node --import ./bench/lib/memory-probe.js ...`; plain JavaScript, so
 * it strips no TypeScript itself): on SIGUSR2 it writes the process's memory breakdown as JSON to
 * $SVC_MEMORY_PROBE_OUT. Never loaded by the daemon itself.
 */
import module from 'node:module'
import { writeFileSync } from 'node:fs'
import v8 from 'node:v8'

const out = process.env.SVC_MEMORY_PROBE_OUT
const loaded = []
if (out) {
  if (process.env.SVC_MEMORY_PROBE_MODULES) {
    module.registerHooks({
      load(url, context, nextLoad) {
        const r = nextLoad(url, context)
        loaded.push([url, r.source ? r.source.length : 0])
        return r
      },
    })
  }
  process.on('SIGUSR2', () => {
    const usage = process.memoryUsage()
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]))
    const heap = v8.getHeapStatistics()
    const internal = process.moduleLoadList.filter((m) => /amaro|wasm/i.test(m))
    writeFileSync(out, JSON.stringify({ usage, spaces, heap, internal, loaded, at: Date.now() }))
  })
}
