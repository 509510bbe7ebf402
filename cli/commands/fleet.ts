export function makeFleetCommand(): never { throw new Error('todo') }
