import type { ApplicationRecord, OfferRecord, OpportunityRecord } from './state.js'

/** Times are milliseconds since the epoch (https://hire.lever.co/developer/documentation#opportunities). */

/** An application as `expand=applications` inlines it (https://hire.lever.co/developer/documentation#applications). */
export function renderApplication(app: ApplicationRecord): Record<string, unknown> {
  return {
    id: app.id,
    opportunityId: app.opportunityId,
    candidateId: app.opportunityId,
    createdAt: app.createdAt,
    type: app.type,
    posting: app.posting,
    postingHiringManager: null,
    postingOwner: null,
    user: app.user,
    name: null,
    email: null,
    phone: null,
    requisitionForHire: null,
    ownerId: null,
    hiringManager: null,
    company: null,
    links: [],
    comments: null,
    customQuestions: [],
    archived: null,
  }
}

/**
 * The opportunity object, as recorded from Lever (amp-labs/connectors@10f046f:providers/lever/test/opportunities.json):
 * `applications` are ids unless expanded; `archived` is null or `{archivedAt, reason}`.
 */
export function renderOpportunity(
  o: OpportunityRecord,
  expand: ReadonlySet<string>,
): Record<string, unknown> {
  return {
    id: o.id,
    name: o.name,
    contact: o.contact,
    headline: '',
    stage: o.stage,
    confidentiality: o.confidentiality,
    location: '',
    phones: [],
    emails: [],
    links: [],
    archived: o.archived,
    tags: [],
    sources: o.sources,
    stageChanges: [{ toStageId: o.stage, toStageIndex: 0, updatedAt: o.lastAdvancedAt, userId: o.owner }],
    origin: o.origin,
    sourcedBy: o.origin === 'sourced' ? o.owner : null,
    owner: o.owner,
    followers: [o.owner],
    applications: expand.has('applications')
      ? o.applications.map(renderApplication)
      : o.applications.map((a) => a.id),
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    lastInteractionAt: o.updatedAt,
    lastAdvancedAt: o.lastAdvancedAt,
    snoozedUntil: null,
    urls: {
      list: 'https://hire.lever.co/candidates',
      show: `https://hire.lever.co/candidates/${o.id}`,
    },
    isAnonymized: false,
    dataProtection: null,
    opportunityLocation: null,
  }
}

const documentOf = (name: string, at: number | null) =>
  at === null
    ? null
    : { fileName: name, uploadedAt: at, downloadUrl: `https://hire.lever.co/documents/${name}` }

/** The offer object (https://hire.lever.co/developer/documentation#offers): `fields` `{text, identifier, value}`, sent and signed documents. */
export function renderOffer(offer: OfferRecord): Record<string, unknown> {
  return {
    id: offer.id,
    createdAt: offer.createdAt,
    status: offer.status,
    creator: offer.creator,
    fields: offer.fields,
    sentDocument: documentOf('offer.pdf', offer.sentAt),
    signedDocument: documentOf('offer-signed.pdf', offer.signedAt),
  }
}
