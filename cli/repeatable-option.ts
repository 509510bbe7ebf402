/** Commander's collector for an option given more than once (`--key a --key b`): every value, in order. */
export const repeatable = (value: string, all: string[]): string[] => [...all, value]
