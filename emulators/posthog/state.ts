import { hash32, SeededRandom, uuidV4, uuidV7 } from '../kit/index.js'
import { DATA_SPAN_DAYS } from './constants.js'
import { type ProjectDataset, type SeedSize, seedProjectData } from './data/seed.js'
import { QueryCache } from './query-cache.js'
import { QueryLimiter, type QueryLimitOptions } from './query-limits.js'
import type { ProjectRecord } from './store/projects.js'

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
  readonly projects = new Map<number, ProjectData>()
  /** The query API's result cache and its per-team limits. */
  readonly queryCache = new QueryCache()
  readonly queryLimiter: QueryLimiter
  /** The project `@current` and the user's `team` refer to. */
  currentProjectId = 1
  private nextProjectId = 1
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

  /** Creates a project; `size` seeds its data (an API-created project starts empty). */
  createProject(
    fields: Partial<Pick<ProjectRecord, 'name' | 'timezone' | 'baseCurrency' | 'productDescription'>>,
    size: SeedSize = { persons: 0, sessions: 0, events: 0 },
    createdAt: number = Date.now(),
  ): ProjectData {
    const id = this.nextProjectId++
    const random = new SeededRandom(hash32(this.options.seed, id))
    // A new team's defaults: name "Default project", time zone UTC, currency USD (`DEFAULT_CURRENCY`),
    // `anonymize_ips` off, no app URLs, `week_start_day` unset, and a `phc_` project token
    // (`generate_random_token_project`) (PostHog/posthog@00438e5ff46a:posthog/models/team/team.py `Team`).
    const project: ProjectRecord = {
      id,
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

  deleteProject(id: number): void {
    this.projects.delete(id)
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
