import {
  FILES,
  PAGES,
  PLANS,
  PRODUCTS,
  SCREENS,
  SEARCH_TERMS,
  SITE_HOST,
  SITE_ORIGIN,
  VIDEOS,
} from '../data/catalog.js'
import type { EventKind } from '../data/event-kinds.js'
import type { SessionProfile, SessionRecord } from './sessions.js'

/** Everything a seeded event's properties are derived from: its session, its kind, its page, and some noise. */
export interface SeededEventView {
  readonly session: SessionRecord
  readonly profile: SessionProfile
  readonly kind: EventKind
  /** Index into PAGES (web) or SCREENS (app). */
  readonly page: number
  /** A per-event random 32-bit number, for the values that vary from event to event. */
  readonly noise: number
}

const PAGE_URLS = PAGES.map((p) => `${SITE_ORIGIN}${p.path}`)
const CLICK_TEXTS = ['Buy now', 'Pricing', 'Read more', 'Add to cart', 'Docs', 'Sign up']

const isWeb = (e: SeededEventView) => !e.profile.device.app
const web = <T>(e: SeededEventView, value: T) => (isWeb(e) ? value : undefined)
const app = <T>(e: SeededEventView, value: T) => (isWeb(e) ? undefined : value)
const when = <T>(e: SeededEventView, event: string, value: () => T) =>
  e.kind.event === event ? value() : undefined
const pickBy = <T>(items: readonly T[], noise: number) => items[noise % items.length] as T

/**
 * One getter per property name, so a query reading `properties.$browser` over a million events computes only
 * that value; the full properties object is every getter's defined value.
 */
export const SEEDED_PROPERTY_GETTERS: Readonly<Record<string, (e: SeededEventView) => unknown>> = {
  $os: (e) => e.profile.device.os,
  $os_version: (e) => e.profile.device.osVersion || undefined,
  $browser: (e) => e.profile.device.browser,
  $browser_version: (e) => e.profile.device.browserVersion,
  $device_type: (e) => e.profile.device.deviceType,
  $lib: (e) => e.profile.device.lib,
  $lib_version: (e) => e.profile.device.libVersion,
  $current_url: (e) => web(e, PAGE_URLS[e.page]),
  $host: (e) => web(e, SITE_HOST),
  $pathname: (e) => web(e, PAGES[e.page]?.path),
  title: (e) => when(e, '$pageview', () => PAGES[e.page]?.title),
  $referrer: (e) => web(e, e.profile.traffic.referrer),
  $referring_domain: (e) => web(e, e.profile.traffic.referringDomain),
  utm_source: (e) => e.profile.traffic.utmSource,
  utm_medium: (e) => e.profile.traffic.utmMedium,
  utm_campaign: (e) => e.profile.traffic.utmCampaign,
  utm_content: (e) => e.profile.traffic.utmContent,
  utm_term: (e) => e.profile.traffic.utmTerm,
  gclid: (e) => e.profile.traffic.gclid,
  $screen_name: (e) => app(e, SCREENS[e.page]),
  $app_name: (e) => app(e, 'Example Shop'),
  $app_version: (e) => app(e, '2.4.0'),
  $session_id: (e) => e.session.id,
  $geoip_country_code: (e) => e.profile.geo.countryCode,
  $geoip_country_name: (e) => e.profile.geo.countryName,
  $geoip_subdivision_1_name: (e) => e.profile.geo.subdivision,
  $geoip_city_name: (e) => e.profile.geo.city,
  $geoip_time_zone: (e) => e.profile.geo.timeZone,
  $geoip_continent_code: (e) => e.profile.geo.continentCode,
  $event_type: (e) => e.kind.eventType,
  $el_text: (e) => (e.kind.eventType === 'click' ? pickBy(CLICK_TEXTS, e.noise) : undefined),
  revenue: (e) => when(e, 'purchase', () => pickBy(PRODUCTS, e.noise).price),
  currency: (e) => when(e, 'purchase', () => 'USD'),
  product: (e) => when(e, 'purchase', () => pickBy(PRODUCTS, e.noise).name),
  query: (e) => when(e, 'search', () => pickBy(SEARCH_TERMS, e.noise)),
  file_name: (e) => when(e, 'file_download', () => pickBy(FILES, e.noise)),
  video_id: (e) => when(e, 'video_play', () => pickBy(VIDEOS, e.noise)),
  invitee_count: (e) => when(e, 'invite_sent', () => 1 + (e.noise % 4)),
  plan: (e) => when(e, 'signed_up', () => pickBy(PLANS, e.noise)),
}

export function seededProperties(e: SeededEventView): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, get] of Object.entries(SEEDED_PROPERTY_GETTERS)) {
    const value = get(e)
    if (value !== undefined) out[name] = value
  }
  return out
}

/** The `elements_chain` autocapture stores: the clicked element and its ancestors, serialized. */
export function seededElementsChain(e: SeededEventView): string {
  if (e.kind.eventType === 'click') {
    const text = pickBy(CLICK_TEXTS, e.noise)
    return `button.btn.btn-primary:nth-child="1"nth-of-type="1"text="${text}";div.hero:nth-child="2"nth-of-type="1"`
  }
  if (e.kind.eventType === 'submit') return 'form.signup-form:attr__id="signup"nth-child="1"nth-of-type="1"'
  return ''
}
