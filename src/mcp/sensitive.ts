import type { Sensitivity } from './tool.js'

/**
 * Keys that name personal data in provider records and nested objects: contact details, names, network
 * addresses and geolocation (PostHog's `$email`, `$ip`, `$geoip_city_name`, `$initial_geoip_*`, …).
 */
const PERSONAL_KEY =
  /^\$?(e-?mails?|(first_|last_|full_|display_|user_?)?name|phones?|phone_number|telephones?|mobile|ip|ip_address|address|street|postal_code|zip(_code)?|birthday|date_of_birth|ssn|(initial_)?geoip_.*|raw_user_agent)$/i

export function isPersonalKey(key: string): boolean {
  return PERSONAL_KEY.test(key)
}

function byKey(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(byKey)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (!isPersonalKey(k)) out[k] = byKey(v)
    return out
  }
  return value
}

function record(value: unknown, sensitivity: Sensitivity): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return byKey(value)
  const hidden = new Set(sensitivity.fields)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    if (hidden.has(k)) continue
    if (sensitivity.byKeyEverywhere && isPersonalKey(k)) continue
    out[k] = byKey(v)
  }
  return out
}

/**
 * `hide_sensitive`: removes the model's personal fields (a visitor's email and name) from each record,
 * and personal keys from everything nested in it, `raw` included. Unified fields with an innocent
 * meaning (an event's `name`) stay: only the model decides at the top level.
 */
export function hideSensitive(result: unknown, sensitivity: Sensitivity): unknown {
  return Array.isArray(result) ? result.map((r) => record(r, sensitivity)) : record(result, sensitivity)
}
