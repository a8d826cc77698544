import { DAY_MS, HOUR_MS, hash32, MINUTE_MS, SeededRandom } from '../kit/index.js'
import {
  type APPLICATION_STATUSES,
  DEFAULT_CURSOR_TTL_MS,
  DEFAULT_RATE_LIMIT,
  type OFFER_STATUSES,
} from './constants.js'

export interface UserRef {
  readonly id: number
  readonly first_name: string
  readonly last_name: string
  readonly employee_id: string | null
}

export interface JobRef {
  readonly id: number
  readonly name: string
}

/** A custom field value with its immutable key, name and type (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_applications.md: `keyed_custom_fields`). */
export interface CustomFieldValue {
  readonly key: string
  readonly name: string
  readonly type: string
  readonly value: unknown
}

export interface OfferRecord {
  readonly id: number
  readonly version: number
  readonly applicationId: number
  readonly createdAt: number
  updatedAt: number
  /** A calendar date, `YYYY-MM-DD` (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_offers.md: `sent_at`). */
  sentAt: string | null
  resolvedAt: number | null
  /** A calendar date, `YYYY-MM-DD` (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_offers.md: `starts_at`). */
  startsAt: string | null
  status: (typeof OFFER_STATUSES)[number]
  readonly customFields: readonly CustomFieldValue[]
}

/** A Harvest V3 (OAuth) credential: its secret and the scopes configured for it. */
export interface ClientRecord {
  readonly secret: string
  readonly scopes: ReadonlySet<string>
}

/** An access token the token endpoint issued. */
export interface TokenRecord {
  readonly clientId: string
  readonly expiresAt: number
}

export interface ApplicationRecord {
  readonly id: number
  readonly candidateId: number
  readonly prospect: boolean
  readonly appliedAt: number
  /** `created_at`/`updated_at`, on every v3 resource (https://harvestdocs.greenhouse.io/docs/standardizations). */
  readonly createdAt: number
  updatedAt: number
  lastActivityAt: number
  rejectedAt: number | null
  readonly source: SourceRecord | null
  readonly creditedTo: UserRef | null
  readonly recruiter: UserRef | null
  readonly coordinator: UserRef | null
  rejectionReason: RejectionReasonRecord | null
  readonly jobs: readonly JobRef[]
  readonly jobPostId: number | null
  status: (typeof APPLICATION_STATUSES)[number]
  currentStage: { id: number; name: string } | null
  readonly answers: readonly { question: string; answer: string }[]
  readonly customFields: readonly CustomFieldValue[]
}

/**
 * A source as GET /v3/sources lists it: `id`, `name`, and `type` `{id, name}`, the sourcing strategy
 * (the public inventory of the v3 reference, "0161 · GET /v3/sources"; see README).
 */
export interface SourceRecord {
  readonly id: number
  readonly name: string
  readonly type: { readonly id: number; readonly name: string }
}

/**
 * A rejection reason as GET /v3/rejection_reasons lists it: `id`, `name`, `type` `{id, key, name}` (the
 * inventory of the v3 reference, "0153 · GET /v3/rejection_reasons"). `builtIn`: one of Greenhouse's own
 * reasons, listed only with `include_defaults=true` (see routes.ts).
 */
export interface RejectionReasonRecord {
  readonly id: number
  readonly name: string
  readonly type: { readonly id: number; readonly key: string; readonly name: string }
  readonly builtIn: boolean
}

export interface CandidateRecord {
  readonly id: number
  readonly firstName: string
  readonly lastName: string
  readonly createdAt: number
  updatedAt: number
  readonly applicationIds: number[]
}

export interface GreenhouseStateOptions {
  readonly seed: number
  readonly candidates: number
  readonly untilMs: number
  /** Credentials: client id -> secret and scopes. */
  readonly clients: Readonly<Record<string, { secret: string; scopes: readonly string[] }>>
  /** Requests per credential per 30-second window. */
  readonly rateLimit?: number
  /** How long a cursor works after it was issued (default DEFAULT_CURSOR_TTL_MS). */
  readonly cursorTtlMs?: number
}

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia', 'Linus']
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Perlman']
const JOB_NAMES = ['Accounting Manager', 'UX Designer - Boston', 'Backend Engineer', 'Product Manager']
export const SOURCES: readonly SourceRecord[] = [
  { id: 2, name: 'Jobs page on your website', type: { id: 6, name: 'Company marketing' } },
  { id: 7, name: 'Indeed', type: { id: 3, name: 'Third-party boards' } },
  { id: 16, name: 'LinkedIn (Prospecting)', type: { id: 4, name: 'Prospecting' } },
]
/** The stages of Greenhouse's default interview plan, in order. */
const STAGES = [
  { id: 767358, name: 'Application Review' },
  { id: 767359, name: 'Preliminary Phone Screen' },
  { id: 767360, name: 'Phone Interview' },
  { id: 767361, name: 'Face to Face' },
  { id: 767362, name: 'Reference Check' },
  { id: 767363, name: 'Offer' },
]
const WE_REJECTED_THEM = { id: 1, key: 'WE_REJECTED_THEM', name: 'We rejected them' }
/** Two of Greenhouse's built-in reasons and one the organization added. */
export const REJECTION_REASONS: readonly RejectionReasonRecord[] = [
  { id: 8, name: 'Lacking skill(s)/qualification(s)', type: WE_REJECTED_THEM, builtIn: true },
  { id: 9504, name: 'Hired another candidate', type: WE_REJECTED_THEM, builtIn: true },
  { id: 31_002, name: 'Cannot relocate to Boston', type: WE_REJECTED_THEM, builtIn: false },
]
const QUESTIONS = ['How did you hear about this job?', 'Website']

/**
 * The emulated organization: users, jobs, candidates with their applications, and offers, drawn from a seed
 * so the same seed always yields the same data.
 */
export class GreenhouseState {
  readonly clients = new Map<string, ClientRecord>()
  readonly tokens = new Map<string, TokenRecord>()
  readonly rateLimit: number
  readonly users: UserRef[] = []
  readonly jobs: JobRef[] = []
  readonly candidates = new Map<number, CandidateRecord>()
  readonly applications = new Map<number, ApplicationRecord>()
  /** Offers by application id, oldest version first. */
  readonly offers = new Map<number, OfferRecord[]>()
  /** Requests counted per client in the current 30-second window. */
  readonly windows = new Map<string, { start: number; count: number }>()
  /** How long a cursor works after it was issued (see DEFAULT_CURSOR_TTL_MS). */
  readonly cursorTtlMs: number
  /** Cursors issued before the current epoch are expired (`expireCursors`). */
  cursorEpoch = 0
  private nextApplicationId = 69_306_314
  private nextOfferId = 1_142_765
  private readonly random: SeededRandom

  constructor(readonly options: GreenhouseStateOptions) {
    for (const [id, client] of Object.entries(options.clients))
      this.clients.set(id, { secret: client.secret, scopes: new Set(client.scopes) })
    this.rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT
    this.cursorTtlMs = options.cursorTtlMs ?? DEFAULT_CURSOR_TTL_MS
    this.random = new SeededRandom(hash32(options.seed, 0x67e))
    for (let i = 0; i < 4; i++) {
      this.users.push({
        id: 92_120 + i * 7,
        first_name: FIRST[i] as string,
        last_name: LAST[i] as string,
        employee_id: i % 2 === 0 ? `E${1000 + i}` : null,
      })
    }
    JOB_NAMES.forEach((name, i) => {
      this.jobs.push({ id: 107_761 + i * 13, name })
    })
    for (let i = 0; i < options.candidates; i++) this.seedCandidate(i)
  }

  private seedCandidate(index: number): void {
    const r = this.random
    const id = 57_683_957 + index * 3
    const createdAt = this.options.untilMs - r.int(20, 120) * DAY_MS - r.int(0, 23) * HOUR_MS
    const candidate: CandidateRecord = {
      id,
      firstName: r.pick(FIRST),
      lastName: r.pick(LAST),
      createdAt,
      updatedAt: createdAt,
      applicationIds: [],
    }
    this.candidates.set(id, candidate)
    // Most candidates apply once; some twice; every seventh is a prospect considered for 0 or 2 jobs.
    const count = r.chance(0.25) ? 2 : 1
    for (let k = 0; k < count; k++) {
      const prospect = index % 7 === 3 && k === 0
      this.addApplication(candidate, prospect, createdAt + k * 3 * DAY_MS + r.int(0, 59) * MINUTE_MS)
    }
    candidate.updatedAt = Math.max(
      candidate.updatedAt,
      ...candidate.applicationIds.map((a) => this.applications.get(a)?.lastActivityAt ?? 0),
    )
  }

  private addApplication(candidate: CandidateRecord, prospect: boolean, appliedAt: number): void {
    const r = this.random
    const id = this.nextApplicationId
    this.nextApplicationId += r.int(1, 40)
    const outcome = r.next()
    const status: ApplicationRecord['status'] = prospect
      ? 'in_process'
      : outcome < 0.15
        ? 'hired'
        : outcome < 0.4
          ? 'rejected'
          : 'in_process'
    const stageIndex = status === 'hired' ? STAGES.length - 1 : r.int(0, STAGES.length - 1)
    const lastActivityAt = Math.min(this.options.untilMs - MINUTE_MS, appliedAt + r.int(1, 15) * DAY_MS)
    const jobs = prospect ? (r.chance(0.5) ? [] : this.jobs.slice(1, 3)) : [r.pick(this.jobs)]
    const app: ApplicationRecord = {
      id,
      candidateId: candidate.id,
      prospect,
      appliedAt,
      createdAt: appliedAt,
      updatedAt: lastActivityAt,
      lastActivityAt,
      rejectedAt: status === 'rejected' ? lastActivityAt : null,
      source: r.chance(0.8) ? r.pick(SOURCES) : null,
      creditedTo: r.pick(this.users),
      recruiter: prospect ? null : r.pick(this.users),
      coordinator: r.chance(0.5) ? r.pick(this.users) : null,
      rejectionReason: status === 'rejected' ? r.pick(REJECTION_REASONS) : null,
      jobs,
      jobPostId: prospect ? null : 123,
      status,
      currentStage: prospect ? null : (STAGES[stageIndex] ?? null),
      answers: prospect
        ? []
        : QUESTIONS.map((question, i) => ({
            question,
            answer: i === 0 ? 'A friend' : `site${id}.example.com`,
          })),
      customFields: [
        {
          key: 'application_custom_test',
          name: 'Application Custom Test',
          type: 'single_select',
          value: r.pick(['Option 1', 'Option 2']),
        },
      ],
    }
    this.applications.set(id, app)
    candidate.applicationIds.push(id)
    if (!prospect && (status === 'hired' || app.currentStage?.name === 'Offer')) this.seedOffers(app)
  }

  /** An offer made at the Offer stage; a hired application has an older, superseded version too. */
  private seedOffers(app: ApplicationRecord): void {
    const list: OfferRecord[] = []
    const made = app.lastActivityAt - 2 * DAY_MS
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
    if (app.status === 'hired') {
      list.push({
        id: this.nextOfferId++,
        version: 1,
        applicationId: app.id,
        createdAt: made - DAY_MS,
        updatedAt: made,
        sentAt: null,
        resolvedAt: null,
        startsAt: day(made + 30 * DAY_MS),
        status: 'Deprecated',
        customFields: [],
      })
    }
    const accepted = app.status === 'hired'
    list.push({
      id: this.nextOfferId++,
      version: list.length + 1,
      applicationId: app.id,
      createdAt: made,
      updatedAt: accepted ? app.lastActivityAt : made,
      sentAt: day(made),
      resolvedAt: accepted ? app.lastActivityAt : null,
      startsAt: day(made + 30 * DAY_MS),
      status: accepted ? 'Accepted' : 'Created',
      customFields: [
        {
          key: 'salary',
          name: 'Salary',
          type: 'currency',
          value: { value: 95_000 + (app.id % 7) * 1000, currency: 'USD' },
        },
      ],
    })
    this.offers.set(app.id, list)
  }

  /** Ends every cursor issued so far, as their lifetime running out would (see DEFAULT_CURSOR_TTL_MS). */
  expireCursors(): void {
    this.cursorEpoch++
  }

  /** Applications in id order: the order the emulator lists them in (Greenhouse documents none). */
  orderedApplications(): ApplicationRecord[] {
    return [...this.applications.values()].sort((a, b) => a.id - b.id)
  }

  /** Records activity on an application now (a stage move), as a recruiter's work would. */
  touch(applicationId: number, at: number): void {
    const app = this.applications.get(applicationId)
    if (!app) throw new Error(`no application ${applicationId}`)
    app.lastActivityAt = at
    app.updatedAt = at
    const candidate = this.candidates.get(app.candidateId)
    if (candidate) candidate.updatedAt = Math.max(candidate.updatedAt, at)
  }
}
