// Preact + htm: tagged templates instead of JSX, so the browser runs these files as written (no build step).
// Every value interpolated into a template is a text node or an attribute value: agent-supplied text stays text.
import { h, render } from 'preact'
import htm from 'htm'

export const html = htm.bind(h)
export { render }
