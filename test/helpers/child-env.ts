/**
 * The environment of an `svc` child process: exactly what the test gives, plus PATH and the run's shared V8
 * compile cache (vitest.config.ts). Without NODE_COMPILE_CACHE a child of a fresh $SVC_HOME strips and compiles
 * every module again (~0.7 s CPU per daemon start here); the cache changes no behaviour, only start-up work.
 */
export function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, ...compileCache(), ...env }
}

/** `{ NODE_COMPILE_CACHE }` of this run, or nothing when none is set. */
export function compileCache(): { NODE_COMPILE_CACHE?: string } {
  const cache = process.env.NODE_COMPILE_CACHE
  return cache ? { NODE_COMPILE_CACHE: cache } : {}
}
