/**
 * The simplest command analysis: the raw `command` text as one command, split on white space.
 * It is the seam the shell-aware analysis replaces; on its own it only suits `command_regex` over raw text.
 */
import { findUrls, STAGE, type EnginePlugin } from '../../core/index.ts'

const plugin: EnginePlugin = {
  name: 'analysis:raw-command',
  apply({ hooks }) {
    hooks.preEvaluate.tap({ name: 'analysis:raw-command', stage: STAGE.DEFAULT }, (request) => {
      const raw = request.input.command
      if (typeof raw !== 'string' || request.shell) return request
      const argv = raw.trim().split(/\s+/).filter(Boolean)
      const program = (argv[0] ?? '').split('/').pop() ?? ''
      return { ...request, shell: { raw, commands: [{ program, argv, text: argv.join(' '), via: [] }], signals: [] }, urls: [...request.urls, ...findUrls(raw)] }
    })
  },
}

export default plugin
