/** A refusal or failure of the signer chain, with a message the CLI prints as-is before a non-zero exit. */
export class SignerError extends Error {
  /** Stable short code for tests and scripts, e.g. `software_refused`, `wrong_code`. */
  readonly code: string

  constructor(code: string, message: string) {
    super(message)
    this.name = 'SignerError'
    this.code = code
  }
}
