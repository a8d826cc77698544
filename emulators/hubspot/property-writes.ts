import { HubspotHttpError, validation } from './errors.js'
import {
  type ContactRecord,
  type HubspotState,
  OWNER_IDS,
  READ_ONLY_PROPERTIES,
  WRITABLE_PROPERTIES,
} from './state.js'

interface PropertyProblem {
  isValid: false
  message: string
  error: string
  name: string
}

/**
 * Checks written properties as HubSpot does: values are strings; an unknown name is PROPERTY_DOESNT_EXIST,
 * a calculated one READ_ONLY_VALUE, a malformed email INVALID_EMAIL, an owner id that is no user
 * INVALID_OWNER_ID; all reported in one 400 "Property values were not valid: [...]"
 * (https://developers.hubspot.com/docs/api/error-handling; SimplePublicObjectInput.properties in the contacts spec).
 */
export function checkProperties(input: unknown): Record<string, string> {
  if (!input || typeof input !== 'object' || Array.isArray(input)) {
    throw validation('Invalid input JSON on line 1: properties must be an object')
  }
  const problems: PropertyProblem[] = []
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(input as Record<string, unknown>)) {
    if (typeof value !== 'string') {
      problems.push({
        isValid: false,
        message: `${JSON.stringify(value)} is not a string`,
        error: 'INVALID_PROPERTY_VALUE',
        name,
      })
      continue
    }
    if ((READ_ONLY_PROPERTIES as readonly string[]).includes(name)) {
      problems.push({
        isValid: false,
        message: `${name} is a read only property; its value cannot be set.`,
        error: 'READ_ONLY_VALUE',
        name,
      })
    } else if (!(WRITABLE_PROPERTIES as readonly string[]).includes(name)) {
      problems.push({
        isValid: false,
        message: `Property "${name}" does not exist`,
        error: 'PROPERTY_DOESNT_EXIST',
        name,
      })
    } else if (name === 'email' && value !== '' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value)) {
      problems.push({
        isValid: false,
        message: `Email address ${value} is invalid`,
        error: 'INVALID_EMAIL',
        name,
      })
    } else if (name === 'hubspot_owner_id' && value !== '' && !OWNER_IDS.includes(value)) {
      problems.push({
        isValid: false,
        message: `${value} is not a valid owner id`,
        error: 'INVALID_OWNER_ID',
        name,
      })
    }
    out[name] = value
  }
  if (problems.length > 0) {
    throw validation(`Property values were not valid: ${JSON.stringify(problems)}`, {
      errors: problems.map((p) => ({
        message: p.message,
        code: p.error,
        context: { propertyName: [p.name] },
      })),
    })
  }
  return out
}

/** A second contact with an email HubSpot holds is 409 CONFLICT naming the holder (https://developers.hubspot.com/docs/guides/api/crm/objects/contacts, "Create contacts"). */
export function refuseDuplicateEmail(
  state: HubspotState,
  email: string | undefined,
  self?: ContactRecord,
): void {
  if (!email) return
  const holder = state.contactByEmail(email)
  if (holder && holder !== self) {
    throw new HubspotHttpError(409, 'CONFLICT', `Contact already exists. Existing ID: ${holder.id}`)
  }
}

/** Writes properties: an empty string clears one (HubSpot's way of unsetting a value). */
export function applyProperties(c: ContactRecord, properties: Record<string, string>, now: number): void {
  for (const [name, value] of Object.entries(properties)) {
    if (value === '') delete c.properties[name]
    else c.properties[name] = value
  }
  c.updatedAt = now
}
