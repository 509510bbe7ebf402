/** Loads the shared RFC test vectors (JSON) for tests. */
import { readFileSync } from 'node:fs'

const VECTOR_DIR = process.env.SVC_VECTORS_DIR ?? '/work/shared/vectors'

/** Parses one vector file from the shared vector directory. */
export function loadVectors<T = unknown>(file: string): T {
  return JSON.parse(readFileSync(`${VECTOR_DIR}/${file}`, 'utf8')) as T
}

/** Hex → Buffer, tolerating the odd-length garbage some probes carry. */
export const hex = (s: string): Buffer => Buffer.from(s, 'hex')
