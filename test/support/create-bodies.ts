/**
 * Plain write bodies and list scopes as an SDK user would find them, by unified names only (never by
 * integration): shared by the conformance suite and `npm run sdk-check`.
 */
import type { IntegrationSupport } from '../../src/integrations/support.js'

type Rec = Record<string, unknown> & { id?: string }

/** Values for fields a provider requires on create, by unified field name (never by integration). */
function requiredValue(field: string, n: string, properties: readonly Rec[]): unknown {
  switch (field) {
    case 'property_id':
      return properties[0]?.id
    case 'parent_id':
      return properties.find((p) => typeof p.parent_id === 'string')?.parent_id
    case 'timezone':
      return 'Europe/Berlin'
    case 'name':
      return `conformance-${n}.example.com`
    case 'page_url':
      return `https://conformance-${n}.example.com/pricing`
    case 'raw.domain':
      return `conformance-${n}.example.com`
    case 'raw.ip':
      // A documentation address (RFC 5737): the visitor's own, which providers that count visitors need.
      return '203.0.113.7'
    default:
      return undefined
  }
}

/** A plain create body per object, as an SDK user would write it, plus what the matrix says is required. */
export function createBody(object: string, support: IntegrationSupport, properties: readonly Rec[]): Rec {
  const n = Math.random().toString(36).slice(2, 8)
  const plain: Record<string, Rec> = {
    analytics_property: { name: `conformance-${n}.example.com` },
    analytics_event: { name: 'sign_up', event_type: 'SIGN_UP' },
    analytics_visitor: { name: `Conformance ${n}`, email: `conformance-${n}@example.com` },
    crm_contact: {
      first_name: 'Conformance',
      last_name: n,
      emails: [{ email: `conformance-${n}@example.com` }],
    },
  }
  const body: Rec = { ...plain[object] }
  for (const [field, mark] of Object.entries(support.outbound_fields ?? {})) {
    if (mark !== 'supported-required') continue
    const value = requiredValue(field, n, properties)
    if (field.startsWith('raw.')) body.raw = { ...(body.raw as Rec), [field.slice(4)]: value }
    else body[field] = value
  }
  return body
}

/**
 * Where a caller finds the value of a scope a list requires, by category and unified parameter name (never by
 * integration): the object whose list gives the ids to choose from.
 */
export const SCOPE_SOURCES: Readonly<Record<string, string>> = {
  'analytics:property_id': 'analytics_property',
  'hris:user_id': 'hris_employee',
  'hris:benefit_id': 'hris_benefit',
}
