import amplitude from './amplitude/definition.js'
import bamboohr from './bamboohr/definition.js'
import fathom from './fathom/definition.js'
import ga4 from './ga4/definition.js'
import greenhouse from './greenhouse/definition.js'
import gusto from './gusto/definition.js'
import hubspot from './hubspot/definition.js'
import lever from './lever/definition.js'
import matomo from './matomo/definition.js'
import mixpanel from './mixpanel/definition.js'
import pipedrive from './pipedrive/definition.js'
import plausible from './plausible/definition.js'
import posthog from './posthog/definition.js'
import type { IntegrationDefinition } from './types.js'
import umami from './umami/definition.js'
import youtube from './youtube/definition.js'

/** Every integration this server offers. Adding one is adding its definition here. */
export const INTEGRATIONS: readonly IntegrationDefinition[] = [
  amplitude,
  bamboohr,
  fathom,
  ga4,
  gusto,
  greenhouse,
  lever,
  hubspot,
  matomo,
  mixpanel,
  pipedrive,
  plausible,
  posthog,
  umami,
  youtube,
]

const byType = new Map(INTEGRATIONS.map((i) => [i.type, i]))

export function integrationOf(type: string): IntegrationDefinition | undefined {
  return byType.get(type)
}
