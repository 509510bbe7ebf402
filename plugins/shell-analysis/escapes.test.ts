import { describe, expect, it } from 'vitest'
import { decodeEscapes, renderPrintf } from './escapes.ts'
import { staticOutput } from './static-output.ts'

describe('escape decoding', () => {
  it('decodes ANSI-C hex, octal, unicode and control escapes', () => {
    expect(decodeEscapes('\\x72\\x6d \\162\\155 \\u0072 \\t\\n \\cA', 'ansi-c')).toBe('rm rm r \t\n \x01')
  })
  it('uses echo -e octal (\\0nnn) and stops at \\c', () => {
    expect(decodeEscapes('\\0162m\\cignored', 'echo')).toBe('rm')
  })
  it('renders simple printf formats and refuses the rest', () => {
    expect(renderPrintf('%s %s\\n', ['rm', '-rf'])).toBe('rm -rf\n')
    expect(renderPrintf('%s;', ['a', 'b'])).toBe('a;b;')
    expect(renderPrintf('%08.3f', ['1'])).toBeUndefined()
  })
})

describe('static output of decoders', () => {
  it('computes base64 -d, xxd -r -p, rev and tr', () => {
    expect(staticOutput('base64', ['base64', '-d'], 'cm0gLXJmIC8=\n')).toBe('rm -rf /')
    expect(staticOutput('xxd', ['xxd', '-r', '-p'], '726d')).toBe('rm')
    expect(staticOutput('rev', ['rev'], '/ fr- mr')).toBe('rm -rf /')
    expect(staticOutput('tr', ['tr', 'a-z', 'n-za-m'], 'ez')).toBe('rm')
    expect(staticOutput('tr', ['tr', '-d', 'x'], 'rxm')).toBe('rm')
  })
  it('leaves unknown programs and missing input unknown', () => {
    expect(staticOutput('base64', ['base64', '-d'], undefined)).toBeUndefined()
    expect(staticOutput('sed', ['sed', 's/a/b/'], 'a')).toBeUndefined()
  })
})
