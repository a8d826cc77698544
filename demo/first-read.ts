import type { IntegrationSupport } from '../src/integrations/support.js'
import { modelOf } from '../src/models/index.js'
import type { DemoProvider } from './providers.js'

/** Analytics lists that need no filter, in the order the demo prefers them. */
const PREFERRED = ['analytics_property', 'analytics_visitor', 'analytics_session']

export interface DemoRead {
  /** `/{category}/{connection_id}/{path}`, for one connection. */
  path(connectionId: string): string
  readonly query: Readonly<Record<string, string>>
}

/**
 * A read that works on this provider's emulator: its probe, else a preferred analytics list, else the first
 * object (of any category) whose list needs no parameter. Paths come from the models, so a CRM or HRIS
 * integration reads under its own category.
 */
export function firstRead(
  provider: DemoProvider,
  matrix: Readonly<Record<string, IntegrationSupport>>,
): DemoRead | undefined {
  const objects = Object.keys(matrix).filter((o) => matrix[o]?.methods.list)
  const needsNothing = (o: string) =>
    !Object.entries(matrix[o] ?? {}).some(([k, v]) => k.startsWith('list_') && v === 'supported-required')
  const probed = provider.probe && objects.find((o) => modelOf(o)?.path === provider.probe?.object)
  const object = probed ?? PREFERRED.find((o) => objects.includes(o)) ?? objects.find(needsNothing)
  const model = object ? modelOf(object) : undefined
  if (!model) return undefined
  return {
    path: (id) => `/${model.category}/${id}/${model.path}`,
    query: probed ? { ...provider.probe?.query } : {},
  }
}
