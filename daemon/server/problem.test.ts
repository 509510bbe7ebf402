import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { EngineError, ERR } from '../../core/errors.ts'
import { engineProblem, toProblem } from './problem.ts'

describe('engine and storage errors as problems', () => {
  it('maps each engine error by its kind: status, stable code, engine_code', () => {
    const cases = [
      [ERR.LEDGER_BROKEN, 503, 'unavailable', 'ledger unavailable: x'],
      [ERR.SESSION_INVALID, 503, 'no_session', 'no usable session: x'],
      [ERR.GUARDRAIL_UNAVAILABLE, 503, 'unavailable', 'guardrail unavailable: x'],
      [ERR.POLICY_INVALID, 400, 'invalid_request', 'invalid policy: x'],
    ] as const
    for (const [kind, status, code, detail] of cases) {
      const p = engineProblem(new EngineError(kind, 'x'))
      expect({ status: p.status, code: p.code, detail: p.message, extra: p.extra }).toEqual({ status, code, detail, extra: { engine_code: kind.code } })
    }
  })

  it('keeps an internal engine failure a 500 that names its code but not its message', () => {
    const p = engineProblem(new EngineError(ERR.PLUGIN_FAILED, 'secret path /home/u/.svc/key'))
    expect(p).toMatchObject({ status: 500, code: 'internal', message: 'internal error PE_PLUGIN_FAILED; see the daemon log', extra: { engine_code: 'PE_PLUGIN_FAILED' } })
  })

  it('turns real node:sqlite failures (closed database, SQL error) into 503 unavailable', () => {
    const db = new DatabaseSync(':memory:')
    const errors: unknown[] = []
    try {
      db.exec('SELECT * FROM missing_table')
    } catch (err) {
      errors.push(err)
    }
    db.close()
    try {
      db.prepare('SELECT 1')
    } catch (err) {
      errors.push(err)
    }
    expect(errors.map((e) => toProblem(e as never)).map((p) => [p.status, p.code])).toEqual([
      [503, 'unavailable'],
      [503, 'unavailable'],
    ])
  })
})
