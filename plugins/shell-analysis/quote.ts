/** One argument written so that bash reads it back as exactly that one word (plain when nothing in it is special). */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}
