/** The committed OpenAPI 3.1 contract is generated from the routes' schemas; this keeps the two in step. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { PROJECT_ROOT } from '../cli/paths.ts'
import { renderOpenApi } from './helpers/openapi.ts'

describe('openapi.yaml', () => {
  it('matches the live routes (run `npm run openapi` after changing a route)', async () => {
    const committed = readFileSync(join(PROJECT_ROOT, 'openapi.yaml'), 'utf8')
    expect(parse(committed)).toEqual(parse(await renderOpenApi()))
  })

  it('is OpenAPI 3.1 and documents the spec endpoints', () => {
    const doc = parse(readFileSync(join(PROJECT_ROOT, 'openapi.yaml'), 'utf8'))
    expect(doc.openapi).toBe('3.1.0')
    for (const path of ['/v1/health', '/v1/mode', '/v1/gates', '/v1/gates/check', '/v1/policy/view', '/v1/auth/mode', '/v1/auth/login', '/v1/sessions/create']) {
      expect(Object.keys(doc.paths)).toContain(path)
    }
  })
  it('documents a success answer for every operation (the hook routes included) but a not-implemented one', () => {
    const doc = parse(readFileSync(join(PROJECT_ROOT, 'openapi.yaml'), 'utf8'))
    const missing: string[] = []
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { summary?: string; responses?: Record<string, unknown> }>>))
      for (const [method, op] of Object.entries(ops)) {
        const statuses = Object.keys(op.responses ?? {})
        if (!statuses.some((s) => /^[23]/.test(s)) && !/not yet implemented/.test(op.summary ?? '')) missing.push(`${method.toUpperCase()} ${path}`)
      }
    expect(missing).toEqual([])
  })
})
