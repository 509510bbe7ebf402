/** One gate compiler per engine (its schema validators are compiled once, not per validate call). */
import { GateCompiler, type Engine } from '../../core/index.ts'

const compilers = new WeakMap<Engine, GateCompiler>()

export function compilerFor(engine: Engine): GateCompiler {
  let compiler = compilers.get(engine)
  if (!compiler) {
    compiler = new GateCompiler(engine.registry, engine.hooks)
    compilers.set(engine, compiler)
  }
  return compiler
}
