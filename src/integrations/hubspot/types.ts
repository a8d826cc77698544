/**
 * HubSpot CRM v3 shapes (HubSpot/HubSpot-public-api-spec-collection@99893791383254f52aa07662baeb98aad65cc710:
 * PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json, components.schemas).
 */

/** `SimplePublicObjectWithAssociations`: every property value is a string (or null when unset). */
export type HubspotContact = {
  id: string
  properties: Record<string, string | null>
  createdAt: string
  updatedAt: string
  archived: boolean
  archivedAt?: string
  associations?: Record<string, HubspotAssociatedIds>
  [key: string]: unknown
}

/** `CollectionResponseAssociatedId`. */
export type HubspotAssociatedIds = {
  results: { id: string; type: string }[]
  paging?: HubspotPaging
}

export type HubspotPaging = { next?: { after: string; link?: string } }

/** `CollectionResponseSimplePublicObjectWithAssociationsForwardPaging` (the list). */
export type HubspotPage = { results: HubspotContact[]; paging?: HubspotPaging }

/** `CollectionResponseWithTotalSimplePublicObject` (a search). */
export type HubspotSearchPage = { total: number; results: HubspotContact[]; paging?: HubspotPaging }

/**
 * `BatchResponsePublicAssociationMultiWithLabel(WithErrors)` (CRM/Associations/Rollouts/130902/v4/associations.json):
 * a result per contact with its page of ids (`paging` while more remain), errors in a 207.
 */
export type HubspotAssociationBatch = {
  status: string
  results: { from: { id: string }; to: { toObjectId: string | number }[]; paging?: HubspotPaging }[]
  errors?: {
    message?: string
    category?: string
    subCategory?: string
    context?: Record<string, string[] | undefined>
  }[]
}

/** One search filter (`Filter`), values as strings. */
export type HubspotFilter = {
  propertyName: string
  operator: 'EQ' | 'NEQ' | 'GT' | 'GTE' | 'LT' | 'LTE' | 'HAS_PROPERTY' | 'IN'
  value?: string
  values?: string[]
}

/** `PublicObjectSearchRequest`. */
export type HubspotSearchRequest = {
  filterGroups: { filters: HubspotFilter[] }[]
  sorts?: { propertyName: string; direction: 'ASCENDING' | 'DESCENDING' }[]
  query?: string
  properties: string[]
  limit: number
  after?: string
}
