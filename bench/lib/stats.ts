/** Percentiles and a one-line summary for benchmark samples (nanoseconds in, microseconds out). */
export function summarise(samplesNs: number[]): { n: number; p50: number; p90: number; p99: number; max: number; mean: number } {
  const sorted = [...samplesNs].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! / 1000
  const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length / 1000
  return { n: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1]! / 1000, mean }
}

export function formatUs(label: string, s: ReturnType<typeof summarise>): string {
  const f = (v: number) => `${v.toFixed(1)}µs`
  return `${label.padEnd(34)} n=${s.n}  p50=${f(s.p50)}  p90=${f(s.p90)}  p99=${f(s.p99)}  max=${f(s.max)}  mean=${f(s.mean)}`
}

export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}
