/** True inside our container image (its Dockerfile sets SVC_IN_CONTAINER=1); never guessed from the file system. */
export function inContainer(env: NodeJS.ProcessEnv): boolean {
  return env.SVC_IN_CONTAINER === '1'
}
