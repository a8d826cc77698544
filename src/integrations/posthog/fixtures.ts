import type { PosthogEvent, PosthogPerson, PosthogProject } from './types.js'

/** Records shaped like PostHog's documented responses (providers.md §2.3, PostHog's serializers). */

export const PROJECT_DETAIL: PosthogProject = {
  id: 12345,
  organization: '0188f3c4-8f3a-0000-b3a8-2c4f0b7d2a11',
  name: 'Acme web',
  product_description: null,
  created_at: '2024-04-01T12:00:00.123456Z',
  updated_at: '2024-05-01T08:30:00.000000Z',
  uuid: '0188f3c4-9a2b-0000-5a1e-4c3f0e9d7b22',
  api_token: 'phc_acme',
  timezone: 'Europe/Berlin',
  base_currency: 'EUR',
  is_demo: false,
}

/** Lists use the basic serializer: no created_at, updated_at or base_currency. */
export const PROJECT_BASIC: PosthogProject = {
  id: 12346,
  uuid: '0188f3c4-9a2b-0000-5a1e-4c3f0e9d7b23',
  organization: '0188f3c4-8f3a-0000-b3a8-2c4f0b7d2a11',
  api_token: 'phc_acme_app',
  name: 'Acme app',
  completed_snippet_onboarding: true,
  has_completed_onboarding_for: {},
  ingested_event: true,
  is_demo: false,
  timezone: 'UTC',
  access_control: false,
}

/**
 * A row of the persons list (`get_serialized_people`): `id` is the uuid, distinct ids come in database order
 * (here the anonymous one first), and there is no last_seen_at.
 */
export const PERSON: PosthogPerson = {
  type: 'person',
  id: '01890c2e-6f8d-0000-4182-6fc9bb92046e',
  uuid: '01890c2e-6f8d-0000-4182-6fc9bb92046e',
  name: 'a@b.co',
  is_identified: true,
  distinct_ids: ['01890c2e-6f8d-7000-8000-000000000001', 'u_42'],
  matched_recordings: [],
  value_at_data_point: null,
  properties: {
    email: 'a@b.co',
    name: 'Ann',
    gender: 'female',
    age: 34,
    plan: 'pro',
    $geoip_country_code: 'US',
    $geoip_country_name: 'United States',
    $geoip_city_name: 'Austin',
    $geoip_time_zone: 'America/Chicago',
    $initial_referring_domain: '$direct',
  },
  created_at: '2024-04-01T12:00:00Z',
}

/** The legacy events API (`GET /api/projects/{pid}/events/{uuid}/`). */
export const REST_EVENT: PosthogEvent = {
  id: '01791c2e-6f8d-0000-4182-6fc9bb92046e',
  distinct_id: 'u_42',
  event: '$pageview',
  timestamp: '2024-05-01T10:00:00.123000+00:00',
  properties: {
    $current_url: 'https://acme.com/',
    title: 'Acme',
    $browser: 'Chrome',
    $os: 'Mac OS X',
    $device_type: 'Desktop',
    $session_id: '0190a1b2-0000-7000-8000-000000000001',
    $referrer: '$direct',
    $geoip_country_code: 'US',
    $geoip_country_name: 'United States',
    $geoip_subdivision_1_name: 'Texas',
    $geoip_city_name: 'Austin',
    utm_source: 'newsletter',
    experiment: 'b',
  },
  person: { is_identified: true, distinct_ids: ['u_42'], properties: { email: 'a@b.co' } },
  elements: [],
  elements_chain: '',
}

/** A HogQL events row zipped by the integration: property values are text, as HogQL returns them. */
export const HOGQL_PURCHASE: PosthogEvent = {
  uuid: '0190a1b2-1111-7000-8000-000000000002',
  event: 'purchase',
  distinct_id: 'u_42',
  timestamp: '2024-05-01T10:05:00.000000Z',
  properties: { revenue: '19.99', currency: 'USD', $session_id: '0190a1b2-0000-7000-8000-000000000001' },
}

export const HOGQL_CLICK: PosthogEvent = {
  uuid: '0190a1b2-2222-7000-8000-000000000003',
  event: '$autocapture',
  distinct_id: 'u_42',
  timestamp: '2024-05-01T10:02:00.000000Z',
  properties: { $event_type: 'click', $current_url: 'https://acme.com/pricing' },
}

/** A `sessions` row zipped with SESSION_COLUMNS. */
export const SESSION_ROW: Record<string, unknown> = {
  session_id: '0190a1b2-0000-7000-8000-000000000001',
  distinct_id: 'u_42',
  $start_timestamp: '2024-05-01T10:00:00.123000Z',
  $end_timestamp: '2024-05-01T10:05:00.000000Z',
  $session_duration: 299,
  $entry_current_url: 'https://acme.com/',
  $end_current_url: 'https://acme.com/pricing',
  $pageview_count: 2,
  $autocapture_count: 1,
  $screen_count: 0,
  $is_bounce: false,
  $entry_utm_source: null,
  $entry_utm_medium: null,
  $entry_utm_campaign: null,
  $entry_referring_domain: 'www.google.com',
  $channel_type: 'Organic Search',
}
