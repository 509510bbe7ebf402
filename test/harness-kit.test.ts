/** Every registered harness against the harness kit (test/helpers/harness-kit.ts): fixtures, answers, install round trips. */
import { describe, expect, it } from 'vitest'
import { harnessPlugins } from '../harnesses/index.ts'
import { harnessKit } from './helpers/harness-kit.ts'

it('covers every registered harness', () => expect(harnessPlugins.length).toBeGreaterThanOrEqual(4))
describe('harness kit', () => harnessPlugins.forEach(harnessKit))
