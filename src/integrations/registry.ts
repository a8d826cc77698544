import type { IntegrationDefinition } from './types.js'

/** Every integration this server offers. Adding one is adding its definition here. */
export const INTEGRATIONS: readonly IntegrationDefinition[] = []

const byType = new Map(INTEGRATIONS.map((i) => [i.type, i]))

export function integrationOf(type: string): IntegrationDefinition | undefined {
  return byType.get(type)
}
