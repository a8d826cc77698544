import { badRequest, notFound } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { WriteBody } from '../types.js'
import type { Ga4Property } from './provider-types.js'

/** `properties/1000` -> `1000`: the unified id is the number; the resource name stays in `raw.__id`. */
export function propertyIdOf(name: string): string {
  return name.startsWith('properties/') ? name.slice('properties/'.length) : name
}

/** The resource name for a unified id; both `1000` and `properties/1000` are accepted. */
export function toGa4PropertyName(id: string): string {
  const bare = propertyIdOf(id.trim())
  if (!/^\d+$/.test(bare)) throw notFound(`GA4 property '${id}' not found: GA4 property ids are numbers`)
  return `properties/${bare}`
}

/**
 * `accounts/100` -> `100`. A sub-property or roll-up property has a property as its parent, whose name is
 * kept whole (`properties/5`) so it cannot be mistaken for an account id.
 */
export function parentIdOf(parent: string | undefined): string | undefined {
  if (!parent) return undefined
  return parent.startsWith('accounts/') ? parent.slice('accounts/'.length) : parent
}

/** The Admin API `parent` for a unified parent_id: `100`, `accounts/100` or `properties/5`. */
export function toGa4Parent(parentId: string): string {
  const v = parentId.trim()
  if (/^\d+$/.test(v)) return `accounts/${v}`
  if (/^(accounts|properties)\/\d+$/.test(v)) return v
  throw badRequest(
    `parent_id: '${parentId}' is not a GA4 account id (a number such as 100) or a property name (properties/5)`,
  )
}

function date(value: string | undefined): Date | undefined {
  if (!value) return undefined
  const d = new Date(value)
  return Number.isNaN(d.getTime()) ? undefined : d
}

export function fromGa4Property(p: Ga4Property): UnifiedRecord {
  return {
    id: propertyIdOf(p.name),
    name: p.displayName,
    timezone: p.timeZone,
    currency: p.currencyCode,
    industry: p.industryCategory === 'INDUSTRY_CATEGORY_UNSPECIFIED' ? undefined : p.industryCategory,
    parent_id: parentIdOf(p.parent),
    created_at: date(p.createTime),
    updated_at: date(p.updateTime),
    raw: { ...p, __id: p.name },
  }
}

/** Unified field -> Admin API field and its `updateMask` path (snake_case, as the API requires). */
const WRITABLE = [
  ['name', 'displayName', 'display_name'],
  ['timezone', 'timeZone', 'time_zone'],
  ['currency', 'currencyCode', 'currency_code'],
  ['industry', 'industryCategory', 'industry_category'],
] as const

function text(body: WriteBody, key: string): string | undefined {
  const v = body[key]
  return typeof v === 'string' ? v : undefined
}

function rawOf(body: WriteBody): Record<string, unknown> {
  const raw = body.raw
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? { ...(raw as Record<string, unknown>) } : {}
}

/** The Admin API Property to create; GA4 needs an account, a display name and a time zone. */
export function toGa4PropertyCreate(body: WriteBody): Record<string, unknown> {
  const parentId = text(body, 'parent_id')
  const missing = [
    parentId ? undefined : 'parent_id (the GA4 account id)',
    text(body, 'name') ? undefined : 'name',
    text(body, 'timezone') ? undefined : 'timezone (an IANA zone such as Europe/Paris)',
  ].filter(Boolean)
  if (missing.length > 0) throw badRequest(`GA4 needs ${missing.join(', ')} to create a property`)
  const out: Record<string, unknown> = { ...rawOf(body), parent: toGa4Parent(parentId as string) }
  for (const [unified, ga4] of WRITABLE) {
    const v = text(body, unified)
    if (v !== undefined) out[ga4] = v
  }
  return out
}

/** The PATCH body and its required `updateMask`: only the fields the caller sent are changed. */
export function toGa4PropertyUpdate(body: WriteBody): {
  property: Record<string, unknown>
  updateMask: string[]
} {
  const property: Record<string, unknown> = {}
  const updateMask: string[] = []
  for (const [unified, ga4, path] of WRITABLE) {
    const v = text(body, unified)
    if (v === undefined) continue
    property[ga4] = v
    updateMask.push(path)
  }
  for (const [key, value] of Object.entries(rawOf(body))) {
    property[key] = value
    updateMask.push(key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))
  }
  return { property, updateMask }
}
