/** Shapes of Amplitude answers (providers.md 4.3). */

export interface AmplitudeExportEvent {
  readonly uuid?: string
  readonly $insert_id?: string
  readonly event_type: string
  readonly event_time?: string
  readonly server_upload_time?: string
  readonly user_id?: string | null
  readonly device_id?: string | null
  readonly amplitude_id?: number
  readonly session_id?: number
  readonly app?: number
  readonly event_properties?: Readonly<Record<string, unknown>>
  readonly user_properties?: Readonly<Record<string, unknown>>
  readonly platform?: string | null
  readonly os_name?: string | null
  readonly os_version?: string | null
  readonly device_type?: string | null
  readonly device_family?: string | null
  readonly language?: string | null
  readonly country?: string | null
  readonly region?: string | null
  readonly city?: string | null
  readonly [key: string]: unknown
}

export interface AmplitudeUserData {
  readonly user_id?: string | null
  readonly canonical_amplitude_id?: number
  readonly num_events?: number
  readonly num_sessions?: number
  readonly first_used?: string
  readonly last_used?: string
  readonly country?: string | null
  readonly city?: string | null
  readonly language?: string | null
  readonly device_ids?: readonly string[]
  readonly properties?: Readonly<Record<string, unknown>>
  readonly [key: string]: unknown
}

export interface AmplitudeUserActivity {
  readonly userData: AmplitudeUserData
  readonly events: readonly AmplitudeExportEvent[]
}

export interface AmplitudeUserSearch {
  readonly matches: ReadonlyArray<{ readonly user_id?: string | null; readonly amplitude_id: number }>
  readonly type: string
}

export interface AmplitudeSegmentation {
  readonly data: {
    readonly series: ReadonlyArray<readonly number[]>
    readonly seriesLabels?: readonly unknown[]
    readonly seriesMeta?: readonly unknown[]
    readonly seriesCollapsed?: ReadonlyArray<ReadonlyArray<{ readonly value: number }>>
    readonly xValues: readonly string[]
  }
}

/** One deletion job of a User Privacy API answer (user-privacy.md, "Response"). */
export interface AmplitudeDeletionJob {
  readonly day?: string
  readonly status?: string
  readonly amplitude_ids?: ReadonlyArray<{ readonly amplitude_id?: number | string } | number | string>
  /** With `ignore_invalid_id`: the users requested that the project has no data of, scheduled for nothing. */
  readonly invalid_ids?: ReadonlyArray<number | string>
}
