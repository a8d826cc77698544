import { isoMicros } from '../../kit/index.js'

/** A PostHog project (with the passthrough fields of its environment, as the API shows them). */
export interface ProjectRecord {
  readonly id: number
  readonly uuid: string
  readonly organizationId: string
  name: string
  productDescription: string | null
  timezone: string
  baseCurrency: string
  readonly apiToken: string
  readonly createdAt: number
  updatedAt: number
  anonymizeIps: boolean
  appUrls: string[]
  weekStartDay: number | null
  isDemo: boolean
}

/**
 * `ProjectBackwardCompatBasicSerializer`: what project lists return (note: no created_at)
 * (PostHog/posthog@master:posthog/api/project.py).
 */
export function serializeProjectBasic(p: ProjectRecord): Record<string, unknown> {
  return {
    id: p.id,
    uuid: p.uuid,
    organization: p.organizationId,
    api_token: p.apiToken,
    name: p.name,
    completed_snippet_onboarding: true,
    has_completed_onboarding_for: { product_analytics: true },
    ingested_event: true,
    is_demo: p.isDemo,
    timezone: p.timezone,
    access_control: false,
  }
}

/** `ProjectBackwardCompatSerializer`: what retrieve, create and update return. */
export function serializeProject(p: ProjectRecord): Record<string, unknown> {
  return {
    id: p.id,
    organization: p.organizationId,
    name: p.name,
    product_description: p.productDescription,
    created_at: isoMicros(p.createdAt),
    effective_membership_level: 8,
    has_group_types: false,
    group_types: [],
    live_events_token: null,
    updated_at: isoMicros(p.updatedAt),
    uuid: p.uuid,
    api_token: p.apiToken,
    app_urls: p.appUrls,
    slack_incoming_webhook: null,
    anonymize_ips: p.anonymizeIps,
    completed_snippet_onboarding: true,
    ingested_event: true,
    test_account_filters: [],
    test_account_filters_default_checked: false,
    path_cleaning_filters: [],
    is_demo: p.isDemo,
    timezone: p.timezone,
    data_attributes: ['data-attr'],
    person_display_name_properties: null,
    correlation_config: {},
    autocapture_opt_out: false,
    autocapture_exceptions_opt_in: false,
    capture_console_log_opt_in: true,
    capture_performance_opt_in: true,
    session_recording_opt_in: false,
    access_control: false,
    week_start_day: p.weekStartDay,
    primary_dashboard: null,
    base_currency: p.baseCurrency,
    has_completed_onboarding_for: { product_analytics: true },
    surveys_opt_in: null,
    heatmaps_opt_in: null,
  }
}
