/** Shapes of Mixpanel answers (providers.md 3.3). */

export interface MixpanelExportEvent {
  readonly event: string
  readonly properties: Readonly<Record<string, unknown>> & {
    readonly time?: number
    readonly distinct_id?: string
    readonly $insert_id?: string
  }
}

export interface MixpanelProfile {
  readonly $distinct_id: string
  readonly $properties: Readonly<Record<string, unknown>>
}

export interface MixpanelEngagePage {
  readonly page: number
  readonly page_size: number
  readonly session_id?: string
  readonly status: string
  readonly total?: number
  readonly results: readonly MixpanelProfile[]
}

export interface MixpanelSeries {
  readonly data: {
    readonly series: readonly string[]
    readonly values: Readonly<Record<string, Readonly<Record<string, number>>>>
  }
  readonly legend_size?: number
}

export interface MixpanelProject {
  readonly name?: string | null
  readonly organization_id?: number | string
  readonly timezone?: string | null
  readonly [key: string]: unknown
}

export interface MixpanelMe {
  readonly results?: { readonly projects?: Readonly<Record<string, MixpanelProject>> }
}
