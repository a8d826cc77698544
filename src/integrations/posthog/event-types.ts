import type { EventType } from '../../models/index.js'

/**
 * providers.md §12.1: PostHog's own event names map directly; the commerce and account types have no
 * PostHog standard, so the usual snake_case names (posthog-js docs, segment spec) count. The first name of
 * each list is the one written on create.
 */
export const EVENT_NAMES_BY_TYPE: Readonly<Partial<Record<EventType, readonly string[]>>> = {
  PAGE_VIEW: ['$pageview'],
  SCREEN_VIEW: ['$screen'],
  PURCHASE: ['purchase', 'order_completed', 'Order Completed'],
  SIGN_UP: ['sign_up', 'signed_up', 'user_signed_up'],
  LOGIN: ['login', 'logged_in', 'user_logged_in'],
  LOGOUT: ['logout', 'logged_out', 'user_logged_out'],
  SEARCH: ['search', 'searched', 'Products Searched'],
  VIDEO_PLAY: ['video_play', 'video_started', 'Video Playback Started'],
  VIDEO_COMPLETE: ['video_complete', 'video_completed', 'Video Playback Completed'],
  FILE_DOWNLOAD: ['file_download', 'file_downloaded'],
  SCROLL: ['scroll'],
  SESSION_START: ['session_start'],
  FIRST_VISIT: ['first_visit'],
}

/** Autocapture events are clicks or form submits according to `$event_type`. */
export const AUTOCAPTURE_TYPES: Readonly<Record<string, EventType>> = {
  click: 'CLICK',
  submit: 'FORM_SUBMIT',
}
export const RAGECLICK = '$rageclick'

const TYPE_BY_NAME = new Map<string, EventType>()
for (const [type, names] of Object.entries(EVENT_NAMES_BY_TYPE)) {
  for (const name of names ?? []) TYPE_BY_NAME.set(name, type as EventType)
}

/** The unified event type of a PostHog event name (and its `$event_type` for autocapture). */
export function eventTypeOf(event: string, autocaptureType: string | undefined): EventType {
  if (event === '$autocapture') return (autocaptureType && AUTOCAPTURE_TYPES[autocaptureType]) || 'CUSTOM'
  if (event === RAGECLICK) return 'CLICK'
  return TYPE_BY_NAME.get(event) ?? 'CUSTOM'
}

/** The PostHog event (and `$event_type`) to capture for a unified type when the caller gave no name. */
export function eventNameFor(type: EventType): { event: string; autocaptureType?: string } | undefined {
  if (type === 'CLICK') return { event: '$autocapture', autocaptureType: 'click' }
  if (type === 'FORM_SUBMIT') return { event: '$autocapture', autocaptureType: 'submit' }
  const names = EVENT_NAMES_BY_TYPE[type]
  return names?.[0] ? { event: names[0] } : undefined
}
