import { badRequest } from '../errors.js'
import type { FieldPlan } from '../integrations/types.js'
import type { ObjectModel, UnifiedRecord } from '../models/index.js'

/** What the caller listed in `fields` (spec section 7), validated against the model. */
export interface FieldSelection {
  /** Undefined when `fields` was not given: all fast fields, no `raw`. */
  readonly listed?: ReadonlySet<string>
  readonly raw: boolean
  readonly rawNames: readonly string[]
}

/** `fields` arrives repeated (`fields=a&fields=b`, the SDK) or comma-joined (`fields=a,b`, curl): accept both. */
export function parseFields(
  value: string | readonly string[] | undefined,
  model: ObjectModel,
): FieldSelection {
  if (value === undefined) return { raw: false, rawNames: [] }
  const names = (Array.isArray(value) ? value : [value])
    .flatMap((v: string) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '')
  if (names.length === 0) return { raw: false, rawNames: [] }
  const rawNames: string[] = []
  for (const name of names) {
    if (name.startsWith('raw.')) {
      if (name.length === 4) throw badRequest("fields: 'raw.' needs a provider field name, as in raw.<name>")
      rawNames.push(name.slice(4))
    } else if (!model.fieldNames.includes(name)) {
      throw badRequest(
        `fields: unknown field '${name}' for ${model.objectType}; allowed: ${model.fieldNames.join(', ')}, raw.<provider field>`,
      )
    }
  }
  return { listed: new Set(names), raw: names.includes('raw'), rawNames }
}

/**
 * Decides which slow fields to fetch, exactly as the opt-in table of spec section 7 says: without `fields`
 * only an opted-in workspace gets them; with `fields`, only the slow fields listed (including `raw.<slow>`).
 */
export function planFields(
  selection: FieldSelection,
  slowFields: readonly string[],
  optIn: boolean,
): FieldPlan {
  const slow = selection.listed
    ? slowFields.filter((f) => selection.listed?.has(f))
    : optIn
      ? [...slowFields]
      : []
  return { raw: selection.raw, rawNames: selection.rawNames, slow: new Set(slow) }
}

/** Dates become ISO-8601 UTC strings; `null` and `undefined` disappear (the SDK rejects null, R7). */
function clean(value: unknown): unknown {
  if (value === null || value === undefined) return undefined
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString()
  if (Array.isArray(value)) return value.map(clean).filter((v) => v !== undefined)
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      const c = clean(v)
      if (c !== undefined) out[k] = c
    }
    return out
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined
  return value
}

function pick(raw: Record<string, unknown>, names: readonly string[]): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {}
  for (const name of names) if (name in raw) out[name] = raw[name]
  return Object.keys(out).length > 0 ? out : undefined
}

/**
 * Shapes one record for the response: listed fields only (or every fast field), `raw` only when asked,
 * slow fields only when planned. `raw` keeps the provider's data unmodified.
 */
export function projectRecord(
  record: UnifiedRecord,
  model: ObjectModel,
  selection: FieldSelection,
  plan: FieldPlan,
  slowFields: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const name of model.fieldNames) {
    if (name === 'raw') continue
    if (selection.listed ? !selection.listed.has(name) : slowFields.includes(name) && !plan.slow.has(name))
      continue
    const value = clean(record[name])
    if (value !== undefined) out[name] = value
  }
  const raw = record.raw
  if (raw && typeof raw === 'object') {
    const chosen = selection.raw
      ? raw
      : selection.rawNames.length > 0
        ? pick(raw, selection.rawNames)
        : undefined
    if (chosen) out.raw = chosen
  }
  return out
}
