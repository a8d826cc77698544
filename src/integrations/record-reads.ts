/**
 * Per-record reads one list page runs at once (a Fathom site token's sites, Umami's session activity and
 * event sessions, PostHog's project details); the rest wait their turn. A page of up to 1,000 records
 * otherwise started every read together, past the connection's queue of calls (a 429), or fanned out at
 * whatever size a provider's page came back.
 */
export const RECORD_READS_AT_ONCE = 4
