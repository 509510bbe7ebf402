/** Duration-valued CLI options (`--ttl`, `--lifetime`): core's parser, with the option named in the error. */
import { parseDuration } from '../core/index.ts'
import { CliError } from './io.ts'

/** Milliseconds of `value` (undefined when the option was not given); a bad value is a usage error (exit 2) naming `flag`. */
export function durationOption(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  try {
    return parseDuration(value)
  } catch (err) {
    throw new CliError(`${flag}: ${(err as Error).message}`, 2)
  }
}
