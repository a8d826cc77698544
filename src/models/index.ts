import { ANALYTICS_MODELS } from './analytics.js'
import { ATS_MODELS } from './ats.js'
import type { ObjectModel } from './common.js'
import { CRM_MODELS } from './crm.js'
import { HRIS_MODELS } from './hris.js'

export * from './analytics.js'
export * from './ats.js'
export * from './common.js'
export * from './crm.js'
export * from './hris.js'
export * from './permissions.js'

/** Every unified object the server knows, across categories. Routes, OpenAPI and tools are generated from it. */
export const MODELS: readonly ObjectModel[] = [
  ...ANALYTICS_MODELS,
  ...HRIS_MODELS,
  ...ATS_MODELS,
  ...CRM_MODELS,
]

const byType = new Map(MODELS.map((m) => [m.objectType, m]))

export function modelOf(objectType: string): ObjectModel | undefined {
  return byType.get(objectType)
}

/** A unified record as handlers produce it: model fields plus `raw`; dates may be Date objects. */
export type UnifiedRecord = Record<string, unknown> & { id?: string; raw?: Record<string, unknown> }
