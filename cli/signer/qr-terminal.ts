/**
 * Renders a string (the otpauth:// URI) as a QR code for the terminal, two modules per character cell
 * with Unicode half blocks and a quiet zone, so an authenticator app can scan it at enrollment.
 */
import qrcode from 'qrcode-generator'

const QUIET = 2

/** The QR code of `text` as lines of half-block characters (dark modules drawn as the terminal's background). */
export function terminalQr(text: string): string {
  const qr = qrcode(0, 'M')
  qr.addData(text)
  qr.make()
  const n = qr.getModuleCount()
  const dark = (r: number, c: number) => r >= 0 && c >= 0 && r < n && c < n && qr.isDark(r, c)
  const lines: string[] = []
  for (let r = -QUIET; r < n + QUIET; r += 2) {
    let line = ''
    for (let c = -QUIET; c < n + QUIET; c++) {
      const top = !dark(r, c)
      const bottom = !dark(r + 1, c)
      line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' '
    }
    lines.push(line)
  }
  return lines.join('\n')
}
