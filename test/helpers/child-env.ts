/**
 * The environment of an `svc` child process: exactly what the test gives, plus PATH and the run's shared V8
 * compile cache (vitest.config.ts). Without NODE_COMPILE_CACHE a child of a fresh $SVC_HOME strips and compiles
 * every module again (~0.7 s CPU per daemon start here); the cache changes no behaviour, only start-up work.
 */
export function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const cache = process.env.NODE_COMPILE_CACHE
  return { PATH: process.env.PATH, ...(cache ? { NODE_COMPILE_CACHE: cache } : {}), ...env }
}
