import { describe, expect, it } from 'vitest'
import { compileGlob } from './glob.ts'
import { assertKnownPortBindings, bindPortGlob, DEFAULT_SVC_PORTS, parsePortList, svcPortSet, svcPortsOf } from './svc-ports.ts'

describe('$SVC_PORTS', () => {
  it('always keeps the reserved defaults, sorted and without duplicates or port 0', () => {
    expect(svcPortSet()).toEqual([7878, 7879])
    expect(svcPortSet([9000, 7878, 0, 17878, 9000])).toEqual([7878, 7879, 9000, 17878])
    expect(() => svcPortSet([70000])).toThrow(/70000 is not a port number/)
    expect(svcPortsOf({})).toBe(DEFAULT_SVC_PORTS)
    expect(svcPortsOf({ svcPorts: [9000] })).toEqual([9000])
  })

  it('parses an operator list and names the bad item', () => {
    expect(parsePortList('17878,17879', 'X')).toEqual([17878, 17879])
    expect(parsePortList(' 17878  17879, ', 'X')).toEqual([17878, 17879])
    expect(parsePortList('', 'X')).toEqual([])
    for (const bad of ['78a', '0', '65536', '-1', '1.5', '0x1ec6'])
      expect(() => parsePortList(`9000,${bad}`, 'SVC_PROTECTED_PORTS'), bad).toThrow(`SVC_PROTECTED_PORTS: "${bad}" is not a port number`)
  })

  it('binds globs to an alternation of the ports', () => {
    expect(bindPortGlob('*:$SVC_PORTS', [9000])).toBe('*:9000')
    const g = compileGlob(bindPortGlob('*:$SVC_PORTS[/:?#]*', [7878, 9000]), { pathMode: false })
    expect(['localhost:9000/v1', 'x:7878?a', 'x:7878:1'].every((s) => g.test(s))).toBe(true)
    expect(['localhost:90001/v1', 'x:7879/'].some((s) => g.test(s))).toBe(false)
  })

  it('refuses an unknown $SVC_ name in an argument glob instead of matching it literally', () => {
    expect(() => assertKnownPortBindings('*:$SVC_PORT')).toThrow('unknown binding "$SVC_PORT" in glob "*:$SVC_PORT"')
    expect(() => assertKnownPortBindings('$SVC_HOME/x')).toThrow(/argument globs know only \$SVC_PORTS/)
    expect(() => assertKnownPortBindings('*:$SVC_PORTS:*')).not.toThrow()
  })
})
