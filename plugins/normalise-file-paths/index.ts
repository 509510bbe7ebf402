/**
 * Adds every path of multi-file tool inputs (`file_paths`: Codex apply_patch, Gemini read_many_files) to
 * the request's paths, so a path gate sees the second file of a patch as well as the first.
 */
import { pathSpellings, STAGE, type EnginePlugin, type EvalRequest } from '../../core/index.ts'

const plugin: EnginePlugin = {
  name: 'normalise:file-paths',
  dependsOn: ['normalise:tool-input'],
  apply({ hooks }) {
    hooks.preEvaluate.tap({ name: 'normalise:file-paths', stage: STAGE.FIRST + 1 }, (request, ctx): EvalRequest => {
      const list = request.input.file_paths
      if (!Array.isArray(list)) return request
      const paths = new Set(request.paths)
      for (const p of list) if (typeof p === 'string' && p.length > 0) for (const s of pathSpellings(p, request.cwd, ctx.home)) paths.add(s)
      return { ...request, paths: [...paths] }
    })
  },
}

export default plugin
