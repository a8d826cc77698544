import { isoMicros } from '../../kit/index.js'

/**
 * How HogQL resolves `events.person_id` for a team (the `personsOnEventsMode` modifier): `disabled` reads it
 * through an INNER JOIN of `person_distinct_ids` on the distinct id (so events whose distinct id has no
 * person drop out of any query that reads `person_id`); the other modes read the id stamped on the event at
 * ingestion, overridden after a merge. A team's `modifiers.personsOnEventsMode` chooses it, else a flag-based
 * default of `person_id_override_properties_joined`
 * (PostHog/posthog@802131113c8e:posthog/models/team/team.py `person_on_events_mode`,
 * `person_on_events_mode_flag_based_default`; PostHog/posthog@8351d962dd0d:posthog/hogql/database/database.py
 * `create_hogql_database`; PostHog/posthog@c1431f564603:posthog/hogql/database/schema/person_distinct_ids.py
 * `join_with_person_distinct_ids_table`, `join_type = "INNER JOIN"`).
 */
export type PersonsOnEventsMode =
  | 'disabled'
  | 'person_id_no_override_properties_on_events'
  | 'person_id_override_properties_on_events'
  | 'person_id_override_properties_joined'

/**
 * A PostHog team ("environment"), which holds the data (events, persons) and has its own project API key.
 * Teams belong to a project; a project's first team has the project's id (they share one id sequence), and
 * the project API (`/api/projects/{id}/`) shows that team's fields and routes project-scoped paths to it
 * (PostHog/posthog@223a76b30414:posthog/models/project.py `create_with_team`, `passthrough_team`;
 * PostHog/posthog@00f00ca85a4c:posthog/api/routing.py `team_id`, "KLUDGE").
 */
export interface ProjectRecord {
  /** The team id: ingestion stamps it on events and derives person uuids from it. */
  readonly id: number
  /** The project the team belongs to (its own id for a project's first team). */
  readonly projectId: number
  personsOnEventsMode: PersonsOnEventsMode
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

/** Whether the team is its project's first ("passthrough") team, the one the project API shows. */
export function isProjectTeam(p: ProjectRecord): boolean {
  return p.id === p.projectId
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
