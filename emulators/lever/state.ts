import { DAY_MS, HOUR_MS, hash32, MINUTE_MS, SeededRandom, uuidV4 } from '../kit/index.js'
import { DEFAULT_BURST, DEFAULT_RATE_PER_SECOND } from './constants.js'
import { type LeverWebhookOptions, LeverWebhooks } from './webhooks.js'

export interface Stage {
  readonly id: string
  readonly text: string
}

/** An archive reason: `type` is `hired` or `non-hired` (https://hire.lever.co/developer/documentation#archive-reasons). */
export interface ArchiveReason {
  readonly id: string
  readonly text: string
  readonly status: 'active' | 'inactive'
  readonly type: 'hired' | 'non-hired'
}

export interface ApplicationRecord {
  readonly id: string
  readonly opportunityId: string
  readonly createdAt: number
  readonly type: 'posting' | 'user' | 'referral'
  readonly posting: string | null
  readonly user: string | null
}

export interface OfferRecord {
  readonly id: string
  readonly createdAt: number
  status: string
  readonly creator: string
  readonly fields: readonly { text: string; identifier: string; value: unknown }[]
  readonly sentAt: number | null
  readonly signedAt: number | null
}

export interface OpportunityRecord {
  readonly id: string
  readonly contact: string
  readonly name: string
  readonly createdAt: number
  updatedAt: number
  lastAdvancedAt: number
  stage: string
  archived: { archivedAt: number; reason: string } | null
  readonly owner: string
  readonly sources: readonly string[]
  readonly origin: string
  readonly applications: readonly ApplicationRecord[]
  /**
   * An opportunity on a confidential posting is confidential; lists leave it out unless asked for
   * (https://help.lever.co/hc/en-us/articles/360042364412: "By default, a list of all requests to the
   * /postings, /opportunities, /candidates, or /requisitions endpoints will exclude confidential data").
   */
  readonly confidentiality: 'confidential' | 'non-confidential'
}

export interface LeverStateOptions {
  readonly seed: number
  readonly contacts: number
  readonly untilMs: number
  readonly apiKeys: readonly string[]
  /** OAuth access tokens the API accepts as bearers, each with every scope (see `tokenScopes`). */
  readonly accessTokens?: readonly string[]
  readonly ratePerSecond?: number
  readonly burst?: number
  /** API keys created without "Allow access to confidential data" (every other key has it; a token, with its scope). */
  readonly keysWithoutConfidentialAccess?: readonly string[]
  /** `posting_id` keeps archived opportunities too (see routes.ts: Lever does not say; by default it does not). */
  readonly postingFilterKeepsArchived?: boolean
  /** The account's webhook settings (see webhooks.ts). */
  readonly webhooks?: LeverWebhookOptions
}

const NAMES = [
  'Ada Lovelace',
  'Grace Hopper',
  'Alan Turing',
  'Barbara Liskov',
  'Radia Perlman',
  'Ken Thompson',
]
const SOURCES = ['LinkedIn', 'Added manually', 'Referral', 'Company website']
const ORIGINS = ['applied', 'sourced', 'referred']

/** The emulated Lever account, drawn from a seed: the same seed always yields the same data. */
export class LeverState {
  readonly keys: Set<string>
  readonly keysWithoutConfidentialAccess: Set<string>
  readonly accessTokens: Set<string>
  /**
   * The scopes granted with each access token the OAuth server issued (scopes.ts says what each endpoint
   * needs). A token given in `accessTokens` has no entry and carries every scope: a test's own token.
   */
  readonly tokenScopes = new Map<string, readonly string[]>()
  readonly ratePerSecond: number
  readonly burst: number
  postingFilterKeepsArchived: boolean
  readonly buckets = new Map<string, { tokens: number; at: number }>()
  readonly users: string[] = []
  readonly postings: string[] = []
  readonly stages: Stage[] = []
  readonly archiveReasons: ArchiveReason[] = []
  readonly opportunities = new Map<string, OpportunityRecord>()
  readonly offers = new Map<string, OfferRecord[]>()
  readonly webhooks: LeverWebhooks
  private readonly random: SeededRandom

  constructor(readonly options: LeverStateOptions) {
    this.keys = new Set(options.apiKeys)
    this.keysWithoutConfidentialAccess = new Set(options.keysWithoutConfidentialAccess ?? [])
    this.accessTokens = new Set(options.accessTokens ?? [])
    this.ratePerSecond = options.ratePerSecond ?? DEFAULT_RATE_PER_SECOND
    this.burst = options.burst ?? DEFAULT_BURST
    this.postingFilterKeepsArchived = options.postingFilterKeepsArchived ?? false
    this.webhooks = new LeverWebhooks(options.webhooks)
    const r = new SeededRandom(hash32(options.seed, 0x1e7e))
    this.random = r
    for (let i = 0; i < 3; i++) this.users.push(uuidV4(r))
    for (let i = 0; i < 4; i++) this.postings.push(uuidV4(r))
    // Lever's default pipeline: lead and applicant stages with fixed ids, interview stages with generated ones
    // (https://help.lever.co/hc/en-us/articles/212474706: New Lead, Reached Out, Responded, New Applicant,
    // Recruiter Screen, Phone Interview, On-site Interview, Offer).
    this.stages.push(
      { id: 'lead-new', text: 'New lead' },
      { id: 'lead-reached-out', text: 'Reached out' },
      { id: 'lead-responded', text: 'Responded' },
      { id: 'applicant-new', text: 'New applicant' },
      { id: uuidV4(r), text: 'Recruiter screen' },
      { id: uuidV4(r), text: 'Phone interview' },
      { id: uuidV4(r), text: 'On-site interview' },
      { id: 'offer', text: 'Offer' },
    )
    this.archiveReasons.push(
      { id: uuidV4(r), text: 'Hired', status: 'active', type: 'hired' },
      { id: uuidV4(r), text: 'Underqualified', status: 'active', type: 'non-hired' },
      { id: uuidV4(r), text: 'Withdrew', status: 'active', type: 'non-hired' },
    )
    for (let i = 0; i < options.contacts; i++) this.seedContact()
    // A deactivated reason stays on the opportunities archived with it and in the list of reasons, as Lever's
    // example shows ("Position filled", status inactive, https://hire.lever.co/developer/documentation#list-all-archive-reasons).
    // Drawn after the contacts so the seeded data stays as it was; no seeded opportunity uses it.
    this.archiveReasons.push({
      id: uuidV4(r),
      text: 'Position filled',
      status: 'inactive',
      type: 'non-hired',
    })
  }

  private seedContact(): void {
    const r = this.random
    const contact = uuidV4(r)
    const name = r.pick(NAMES)
    const count = r.chance(0.2) ? 2 : 1
    for (let k = 0; k < count; k++) {
      const id = uuidV4(r)
      const createdAt =
        this.options.untilMs - r.int(5, 150) * DAY_MS - r.int(0, 23) * HOUR_MS - r.int(0, 59) * MINUTE_MS
      const updatedAt = Math.min(this.options.untilMs - MINUTE_MS, createdAt + r.int(1, 20) * DAY_MS)
      const stage = r.pick(this.stages)
      const outcome = r.next()
      const archived =
        outcome < 0.15
          ? { archivedAt: updatedAt, reason: (this.archiveReasons[0] as ArchiveReason).id }
          : outcome < 0.4
            ? { archivedAt: updatedAt, reason: r.pick(this.archiveReasons.slice(1)).id }
            : null
      const posting = r.chance(0.85) ? r.pick(this.postings) : null
      const opportunity: OpportunityRecord = {
        id,
        contact,
        name,
        createdAt,
        updatedAt,
        lastAdvancedAt: updatedAt,
        stage: archived?.reason === this.archiveReasons[0]?.id ? 'offer' : stage.id,
        archived,
        owner: r.pick(this.users),
        sources: [r.pick(SOURCES)],
        origin: r.pick(ORIGINS),
        applications: posting
          ? [{ id: uuidV4(r), opportunityId: id, createdAt, type: 'posting', posting, user: null }]
          : [],
        confidentiality:
          posting !== null && this.isConfidentialPosting(posting) ? 'confidential' : 'non-confidential',
      }
      this.opportunities.set(id, opportunity)
      if (opportunity.stage === 'offer') this.seedOffers(opportunity)
    }
  }

  /**
   * Offers at the Offer stage: `status` one of draft, approval-sent, approved, sent, sent-manually, opened,
   * denied, signed (https://hire.lever.co/developer/documentation#offers).
   */
  private seedOffers(opportunity: OpportunityRecord): void {
    const r = this.random
    const hired = opportunity.archived?.reason === this.archiveReasons[0]?.id
    const createdAt = opportunity.updatedAt - 3 * DAY_MS
    const status = hired ? 'signed' : r.pick(['draft', 'approved', 'sent', 'opened'])
    const sent = ['sent', 'opened', 'signed'].includes(status)
    this.offers.set(opportunity.id, [
      {
        id: uuidV4(r),
        createdAt,
        status,
        creator: opportunity.owner,
        fields: [
          { text: 'Salary', identifier: 'salary_amount', value: 90_000 + r.int(0, 40) * 1000 },
          { text: 'Currency', identifier: 'salary_currency', value: 'USD' },
        ],
        sentAt: sent ? createdAt + DAY_MS : null,
        signedAt: status === 'signed' ? opportunity.updatedAt : null,
      },
    ])
  }

  /** Opportunities as Lever lists them: newest created first (its offset tokens carry createdAt, then id). */
  ordered(): OpportunityRecord[] {
    return [...this.opportunities.values()].sort(
      (a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1),
    )
  }

  /** The last posting is a confidential one (an executive search), and so are its opportunities. */
  isConfidentialPosting(posting: string): boolean {
    return posting === this.postings[3]
  }

  contactExists(contact: string): boolean {
    for (const o of this.opportunities.values()) if (o.contact === contact) return true
    return false
  }

  stageText(id: string): string | undefined {
    return this.stages.find((s) => s.id === id)?.text
  }
}
