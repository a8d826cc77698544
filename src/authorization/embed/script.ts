import type { IntegrationView } from '../../integrations/support.js'
import { EMBED_CLIENT } from './client.js'
import { EMBED_CSS } from './styles.js'

/** The script's parameters (spec 5.5 and Unified's embed): read from its own `src`, as the server sees them. */
export interface EmbedOptions {
  readonly api: string
  readonly wid: string
  readonly did: string
  readonly env?: string
  readonly uid?: string
  readonly state?: string
  readonly scopes?: string
  readonly surl?: string
  readonly furl?: string
  readonly lang?: string
  readonly link_url?: string
  readonly style?: boolean
  readonly nocategories?: boolean
  readonly notabs?: boolean
}

/** JSON that is safe inside a script: `<`, U+2028 and U+2029 cannot end the script or the string. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029')
}

/**
 * The workspace's integrations go into the script itself, so the customer's page makes one request to
 * Unigate and needs no cross-origin fetch (nor CORS) to render.
 */
export function embedScript(options: EmbedOptions, integrations: readonly IntegrationView[]): string {
  const data = {
    options,
    css: EMBED_CSS,
    integrations: integrations.map((i) => ({
      type: i.type,
      name: i.name,
      categories: i.categories,
      ...(i.color ? { color: i.color } : {}),
    })),
  }
  return EMBED_CLIENT.replace('__DATA__', () => scriptJson(data))
}
