import { describe, expect, it } from 'vitest'
import { choiceChanges } from './index.ts'

describe('pack choice changes', () => {
  it('names every pack whose choice changed, with both choices, and nothing else', () => {
    const before = new Map([
      ['iac', 'off'],
      ['git', 'monitor'],
    ])
    const after = new Map([
      ['git', 'monitor'],
      ['cloud', 'deny'],
    ])
    expect(choiceChanges(before, after)).toEqual([
      { pack: 'cloud', from: 'as shipped', to: 'deny' },
      { pack: 'iac', from: 'off', to: 'as shipped' },
    ])
    expect(choiceChanges(after, after)).toEqual([])
  })
})
