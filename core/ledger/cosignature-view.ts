/** One C2SP witness's newest cosignature of this ledger, as GET /v1/ledger/root shows it (wire names). */
export interface CosignatureView {
  readonly witness: string
  readonly tree_size: number
  readonly root: string
  readonly cosignature: string
  readonly timestamp: number
  /** Why the last submission to this witness failed, if it did. */
  readonly error?: string
}
