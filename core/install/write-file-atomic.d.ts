// write-file-atomic ships no types; this is the part of its API the installer uses.
declare module 'write-file-atomic' {
  interface Options {
    mode?: number
    chown?: { uid: number; gid: number } | false
    encoding?: BufferEncoding
    fsync?: boolean
  }
  function writeFileAtomic(path: string, data: string | Uint8Array, options?: Options): Promise<void>
  namespace writeFileAtomic {
    function sync(path: string, data: string | Uint8Array, options?: Options): void
  }
  export default writeFileAtomic
}
