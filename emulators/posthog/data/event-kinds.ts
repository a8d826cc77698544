/** The kinds of events seeded sessions are made of; a seeded event stores only its kind's index. */
export interface EventKind {
  readonly event: string
  /** `$event_type` of `$autocapture` events. */
  readonly eventType?: 'click' | 'submit'
  /** Relative frequency after the first event of a web session and of an app session. */
  readonly webWeight: number
  readonly appWeight: number
}

export const EVENT_KINDS: readonly EventKind[] = [
  { event: '$pageview', webWeight: 40, appWeight: 0 },
  { event: '$autocapture', eventType: 'click', webWeight: 25, appWeight: 20 },
  { event: '$autocapture', eventType: 'submit', webWeight: 5, appWeight: 3 },
  { event: '$screen', webWeight: 0, appWeight: 45 },
  { event: '$pageleave', webWeight: 5, appWeight: 0 },
  { event: 'signed_up', webWeight: 2, appWeight: 2 },
  { event: 'logged_in', webWeight: 3, appWeight: 4 },
  { event: 'logged_out', webWeight: 1, appWeight: 1 },
  { event: 'purchase', webWeight: 3, appWeight: 4 },
  { event: 'search', webWeight: 5, appWeight: 8 },
  { event: 'file_download', webWeight: 2, appWeight: 0 },
  { event: 'video_play', webWeight: 3, appWeight: 8 },
  { event: 'invite_sent', webWeight: 1, appWeight: 5 },
]

export const PAGEVIEW_KIND = 0
export const SCREEN_KIND = 3
export const WEB_KIND_WEIGHTS = EVENT_KINDS.map((k) => k.webWeight)
export const APP_KIND_WEIGHTS = EVENT_KINDS.map((k) => k.appWeight)
