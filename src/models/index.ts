import { ANALYTICS_MODELS } from './analytics.js'
import type { ObjectModel } from './common.js'

export * from './analytics.js'
export * from './common.js'
export * from './permissions.js'

/** Every unified object the server knows, across categories. Routes, OpenAPI and tools are generated from it. */
export const MODELS: readonly ObjectModel[] = [...ANALYTICS_MODELS]

const byType = new Map(MODELS.map((m) => [m.objectType, m]))

export function modelOf(objectType: string): ObjectModel | undefined {
  return byType.get(objectType)
}

/** A unified record as handlers produce it: model fields plus `raw`; dates may be Date objects. */
export type UnifiedRecord = Record<string, unknown> & { id?: string; raw?: Record<string, unknown> }
