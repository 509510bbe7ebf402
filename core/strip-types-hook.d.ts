/** Types for strip-types-hook.js (plain JavaScript: it must load before any type stripping is possible). */

/** `text` without its types, from the strip cache in `cacheDir` when an intact entry is there (see the module). */
export function strippedSource(text: string, cacheDir: string | undefined, stripper?: (text: string) => string): string
