import type { FastifyInstance } from 'fastify'
import { isoMicros } from '../../kit/index.js'
import type { PosthogState } from '../state.js'

/**
 * `GET /api/users/@me/`: the key's user with its current organization and team (the connection check)
 * (PostHog/posthog@master:posthog/api/user.py `UserSerializer`).
 */
export function registerMeRoutes(app: FastifyInstance, state: PosthogState): void {
  app.get('/api/users/@me', async () => {
    const org = state.organization
    const user = state.user
    const current = state.projects.get(state.currentTeamId)?.project
    // `team` is the user's current team, any environment of any project; `organization.teams` lists every
    // team and `organization.projects` the projects (TeamBasicSerializer, ProjectBasicSerializer:
    // PostHog/posthog@5debee2fd96b:posthog/api/shared.py).
    const teams = [...state.projects.values()].map(({ project: p }) => ({
      id: p.id,
      uuid: p.uuid,
      organization: org.id,
      project_id: p.projectId,
      api_token: p.apiToken,
      name: p.name,
      completed_snippet_onboarding: true,
      has_completed_onboarding_for: { product_analytics: true },
      ingested_event: true,
      is_demo: p.isDemo,
      timezone: p.timezone,
      access_control: false,
    }))
    return {
      date_joined: isoMicros(user.dateJoined),
      uuid: user.uuid,
      distinct_id: user.distinctId,
      first_name: user.firstName,
      last_name: user.lastName,
      email: user.email,
      pending_email: null,
      is_email_verified: true,
      notification_settings: { plugin_disabled: true },
      anonymize_data: false,
      toolbar_mode: 'toolbar',
      has_password: true,
      is_staff: false,
      is_impersonated: false,
      team: teams.find((t) => t.id === current?.id) ?? null,
      organization: {
        id: org.id,
        name: org.name,
        slug: org.slug,
        created_at: isoMicros(org.createdAt),
        updated_at: isoMicros(org.createdAt),
        membership_level: 15,
        plugins_access_level: 9,
        teams,
        projects: teams
          .filter((t) => t.id === t.project_id)
          .map((t) => ({ id: t.id, organization_id: org.id, name: t.name })),
        available_product_features: [],
        is_member_join_email_enabled: true,
        metadata: {},
        customer_id: null,
        enforce_2fa: null,
        member_count: 1,
      },
      organizations: [
        {
          id: org.id,
          slug: org.slug,
          logo_media_id: null,
          name: org.name,
          membership_level: 15,
          members_can_use_personal_api_keys: true,
        },
      ],
      events_column_config: { active: 'DEFAULT' },
      is_2fa_enabled: false,
      has_social_auth: false,
      has_seen_product_intro_for: {},
      theme_mode: 'system',
      hedgehog_config: null,
      role_at_organization: 'engineering',
    }
  })
}
