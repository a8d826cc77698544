import { hash32, SeededRandom, uuidV4, uuidV7 } from '../kit/index.js'
import { DATA_SPAN_DAYS } from './constants.js'
import { type ProjectDataset, type SeedSize, seedProjectData } from './data/seed.js'
import { QueryCache } from './query-cache.js'
import { QueryLimiter, type QueryLimitOptions } from './query-limits.js'
import type { ProjectRecord } from './store/projects.js'

/** A team ("environment") and its data; a project's first team has the project's id (store/projects.ts). */
export interface ProjectData extends ProjectDataset {
  readonly project: ProjectRecord
}

export interface OrganizationRecord {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly createdAt: number
}

export interface UserRecord {
  readonly uuid: string
  readonly distinctId: string
  readonly email: string
  readonly firstName: string
  readonly lastName: string
  readonly dateJoined: number
}

export interface StateOptions {
  readonly seed: number
  readonly projects: number
  /** Size of the first project's data; the others get a tenth of it. */
  readonly size: SeedSize
  readonly apiKeys: readonly string[]
  readonly projectApiKey: string
  readonly untilMs: number
  /** Time zone of each seeded project, by position; projects past the list get `DEFAULT_SEEDED_ZONES`'. */
  readonly timezones?: readonly string[]
  /** The query API's concurrency limit and execution budget (PostHog's values by default). */
  readonly queryLimits?: QueryLimitOptions
}

/**
 * The first project reports in UTC (PostHog's default for a new team), the second in New York: a project's
 * `timezone` decides where HogQL cuts days and hours
 * (PostHog/posthog@00438e5ff46a:posthog/models/team/team.py `Team.timezone`; hogql/zone.ts).
 */
export const DEFAULT_SEEDED_ZONES: readonly string[] = ['UTC', 'America/New_York']

/** Everything the emulator holds: one organization, its projects and each project's data. */
export class PosthogState {
  readonly organization: OrganizationRecord
  readonly user: UserRecord
  readonly apiKeys: ReadonlySet<string>
  /** Every team by its id: each project's first team (the project's id) and its other environments. */
  readonly projects = new Map<number, ProjectData>()
  /** The query API's result cache and its per-team limits. */
  readonly queryCache = new QueryCache()
  readonly queryLimiter: QueryLimiter
  /**
   * The user's current team (`@me`'s `team`, what `@current` names): a UI preference, so it may be any
   * environment of any project.
   */
  currentTeamId = 1
  /** Projects and teams share one id sequence (`Team.objects.increment_id_sequence`, store/projects.ts). */
  private nextTeamId = 1
  private nextPersonId = 1
  private readonly random: SeededRandom

  constructor(private readonly options: StateOptions) {
    this.random = new SeededRandom(hash32(options.seed, 0x9057))
    const created = options.untilMs - 400 * 24 * 3600_000
    this.organization = {
      id: uuidV7(created, this.random),
      name: 'Example Shop',
      slug: 'example-shop',
      createdAt: created,
    }
    this.user = {
      uuid: uuidV7(created, this.random),
      distinctId: uuidV4(this.random),
      email: 'owner@example.com',
      firstName: 'Olive',
      lastName: 'Owner',
      dateJoined: created,
    }
    this.apiKeys = new Set(options.apiKeys)
    this.queryLimiter = new QueryLimiter(options.queryLimits)
    for (let i = 0; i < options.projects; i++) {
      const size = i === 0 ? options.size : shrink(options.size)
      const zones = options.timezones ?? DEFAULT_SEEDED_ZONES
      this.createProject(
        {
          name: i === 0 ? 'Example Shop' : `Example Shop ${i + 1}`,
          timezone: zones[i] ?? DEFAULT_SEEDED_ZONES[i % DEFAULT_SEEDED_ZONES.length],
        },
        size,
        created + i * 3600_000,
      )
    }
  }

  /**
   * Creates a project and its first team, which shares its id; `size` seeds the team's data (an API-created
   * project starts empty).
   */
  createProject(
    fields: Partial<Pick<ProjectRecord, 'name' | 'timezone' | 'baseCurrency' | 'productDescription'>>,
    size: SeedSize = { persons: 0, sessions: 0, events: 0 },
    createdAt: number = Date.now(),
  ): ProjectData {
    return this.createTeam(undefined, fields, size, createdAt)
  }

  /**
   * Adds an environment (a team with its own id, API key and data) to an existing project, as PostHog's
   * `/api/environments/` create does (PostHog/posthog@223a76b30414:posthog/models/project.py: a project's
   * other teams take the next ids of the shared sequence).
   */
  createEnvironment(
    projectId: number,
    fields: Partial<Pick<ProjectRecord, 'name' | 'timezone' | 'baseCurrency' | 'productDescription'>> = {},
    size: SeedSize = { persons: 0, sessions: 0, events: 0 },
  ): ProjectData {
    const project = this.projects.get(projectId)?.project
    if (!project || project.projectId !== projectId) throw new Error(`no project ${projectId}`)
    return this.createTeam(projectId, fields, size, Date.now())
  }

  private createTeam(
    projectId: number | undefined,
    fields: Partial<Pick<ProjectRecord, 'name' | 'timezone' | 'baseCurrency' | 'productDescription'>>,
    size: SeedSize,
    createdAt: number,
  ): ProjectData {
    const id = this.nextTeamId++
    const random = new SeededRandom(hash32(this.options.seed, id))
    // A new team's defaults: name "Default project", time zone UTC, currency USD (`DEFAULT_CURRENCY`),
    // `anonymize_ips` off, no app URLs, `week_start_day` unset, and a `phc_` project token
    // (`generate_random_token_project`) (PostHog/posthog@00438e5ff46a:posthog/models/team/team.py `Team`).
    const project: ProjectRecord = {
      id,
      projectId: projectId ?? id,
      personsOnEventsMode: 'person_id_override_properties_joined',
      uuid: uuidV7(createdAt, random),
      organizationId: this.organization.id,
      name: fields.name ?? 'Default project',
      productDescription: fields.productDescription ?? null,
      timezone: fields.timezone ?? 'UTC',
      baseCurrency: fields.baseCurrency ?? 'USD',
      apiToken: id === 1 ? this.options.projectApiKey : `phc_${uuidV4(random).replaceAll('-', '')}`,
      createdAt,
      updatedAt: createdAt,
      anonymizeIps: false,
      appUrls: [],
      weekStartDay: null,
      isDemo: false,
    }
    const dataset = seedProjectData(
      random,
      size,
      this.options.untilMs,
      DATA_SPAN_DAYS,
      () => this.nextPersonId++,
      id,
    )
    const data = { project, ...dataset }
    this.projects.set(id, data)
    return data
  }

  /** Deletes a project with all of its teams. */
  deleteProject(projectId: number): void {
    for (const [id, data] of this.projects) if (data.project.projectId === projectId) this.projects.delete(id)
  }

  projectByToken(token: string): ProjectData | undefined {
    for (const data of this.projects.values()) if (data.project.apiToken === token) return data
    return undefined
  }

  allocatePersonId(): number {
    return this.nextPersonId++
  }
}

function shrink(size: SeedSize): SeedSize {
  return {
    persons: Math.ceil(size.persons / 10),
    sessions: Math.ceil(size.sessions / 10),
    events: Math.ceil(size.events / 10),
  }
}
