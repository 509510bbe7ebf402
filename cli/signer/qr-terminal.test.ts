import { describe, expect, it } from 'vitest'
import qrcode from 'qrcode-generator'
import { terminalQr } from './qr-terminal.ts'

describe('terminalQr', () => {
  it('draws every module of the QR code, two rows per line, inside a quiet zone', () => {
    const uri = 'otpauth://totp/svc:svc%40host?secret=JBSWY3DPEHPK3PXP&issuer=svc'
    const qr = qrcode(0, 'M')
    qr.addData(uri)
    qr.make()
    const n = qr.getModuleCount()
    const lines = terminalQr(uri).split('\n')
    expect(lines).toHaveLength(Math.ceil((n + 4) / 2))
    expect(lines.every((l) => [...l].length === n + 4)).toBe(true)
    const upperIsDark = (ch: string) => ch === ' ' || ch === '▄'
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const row = r + 2
        const ch = [...lines[Math.floor(row / 2)]!][c + 2]!
        const dark = row % 2 === 0 ? upperIsDark(ch) : ch === ' ' || ch === '▀'
        expect(dark, `module ${r},${c}`).toBe(qr.isDark(r, c))
      }
    }
    expect(terminalQr('x')).not.toBe(terminalQr('y'))
  })
})
