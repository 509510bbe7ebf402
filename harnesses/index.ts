/**
 * The built-in harness plugins, registered at startup in this order. Adding a harness is one folder and
 * one line here.
 */
import claudeCode from './claude-code/index.ts'
import codex from './codex/index.ts'
import cursor from './cursor/index.ts'
import gemini from './gemini/index.ts'
import type { HarnessPlugin } from '../core/index.ts'

export const harnessPlugins: readonly HarnessPlugin[] = [claudeCode, codex, gemini, cursor]
