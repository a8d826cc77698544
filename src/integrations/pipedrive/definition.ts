import { Type } from '@sinclair/typebox'
import { type AuthField, defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { pipedriveBaseUrl, pipedriveOAuth2 } from './oauth.js'
import { personHandlers } from './persons.js'

const API_URL_FIELD: AuthField = {
  name: 'api_url',
  label: 'API base address',
  secret: false,
  required: false,
  description:
    'Default: https://api.pipedrive.com (or the company domain an OAuth token names); or https://<company>.pipedrive.com',
}

/**
 * `GET /v1/users/me`: `{success: true, data: {id, company_id, company_domain, ...}}`, the user with its company's id
 * and domain (https://developers.pipedrive.com/docs/api/v1/Users#getCurrentUser; emulators/pipedrive/routes/persons.ts).
 */
const CURRENT_USER = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({
    id: Type.Integer(),
    company_id: Type.Integer(),
    company_domain: Type.Optional(Type.String()),
  }),
})

/**
 * Pipedrive persons as CRM contacts, through API v2 (`/api/v2/persons`: cursor paging, `updated_since`,
 * owner/organization/deal filters; v1's `GET /v1/persons` is deprecated, pipedrive/client-nodejs v32 no
 * longer has it). The API token goes in the `x-api-token` header rather than the `api_token` query
 * parameter, so it never sits in an address (https://pipedrive.readme.io/docs/core-api-concepts-authentication).
 */
export default defineIntegration({
  type: 'pipedrive',
  name: 'Pipedrive',
  categories: ['crm'],
  description: 'Pipedrive CRM: persons, with their organization and owner.',
  webUrl: 'https://www.pipedrive.com',
  apiDocsUrl: 'https://developers.pipedrive.com/docs/api/v1/Persons',
  color: '#017737',
  rateLimitDescription:
    'Per token, in 2-second windows: 20 to 120 requests for an API token, 80 to 480 for an OAuth token, by plan, and 10 searches on every plan (retried after x-ratelimit-reset); plus a daily token budget per company, which is not retried once spent and is answered 429 saying so.',
  auth: {
    kind: 'api_key',
    fields: [
      {
        name: 'api_token',
        label: 'API token',
        secret: true,
        required: true,
        description: 'A personal API token (Settings > Personal preferences > API)',
      },
      API_URL_FIELD,
    ],
  },
  // Or OAuth, when the workspace configured a Pipedrive app (the auth endpoint then prefers it).
  oauth: pipedriveOAuth2([API_URL_FIELD]),
  baseUrl: pipedriveBaseUrl,
  authHeaders: (c): Record<string, string> =>
    c.access_token ? { authorization: `Bearer ${c.access_token}` } : { 'x-api-token': c.api_token ?? '' },
  // The token's user and company (Users API, still v1: GET /v1/users/me).
  async verify(client) {
    const me = await verifyCall(client, { path: '/api/v1/users/me' }, CURRENT_USER)
    return {
      user_id: String(me.data.id),
      company_id: String(me.data.company_id),
      company_domain: me.data.company_domain,
    }
  },
  /**
   * Pipedrive answers 429 for two limits (https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting):
   * a token's burst limit, over a rolling 2-second window whose `x-ratelimit-limit`, `x-ratelimit-remaining`
   * and `x-ratelimit-reset` (seconds until the window resets) it answers, worth waiting out; and the
   * company's daily token budget, after which "all further API requests will be rejected with a 429 (Too
   * Many Requests) status code" until it "resets at midnight at server's timezone". Pipedrive documents no
   * body, header or code of its own for the second (its OAuth status codes page gives one 429, "Request over
   * limit"), so it is told by what the burst headers say: a 429 while `x-ratelimit-remaining` is above 0
   * was not refused by the 2-second window, and no wait of seconds clears the budget (ours: an inference from
   * the headers' meaning, not a rule Pipedrive states). A 429 without those headers, or with 0 left, is a burst
   * refusal, retried as before. Which window's headers a refused search answers is not documented: were it the
   * token's general window, a search refused by its own limit (10 per 2 seconds) would carry room in it and
   * read as the budget, so a search's 429 is always taken for a burst refusal and retried (a spent budget then
   * costs a search its few bounded retries before the same 429 is answered).
   */
  retry: {
    on: [429, 502, 503, 504],
    afterHeaders: ['retry-after', 'x-ratelimit-reset'],
    dailyQuotaSpent: (status, _body, headers, path) => {
      if (status !== 429 || isSearch(path)) return false
      const raw = headers['x-ratelimit-remaining']
      return Number(Array.isArray(raw) ? raw[0] : (raw ?? 0)) > 0
    },
  },
  /**
   * The budget is the company's, shared by all its users and apps, and its reset is midnight in a time zone
   * Pipedrive does not name ("which may not be aligned with timezone of customer location", rate limiting
   * page): so the answer cannot say when it resets, nor give a retry-after.
   */
  dailyQuotaWords: {
    quota: "The Pipedrive company's daily API token budget",
    resets:
      "it resets at midnight in the time zone of Pipedrive's servers, which Pipedrive does not name, so no retry-after can be given",
  },
  objects: {
    crm_contact: personHandlers,
  },
})

/** A search endpoint (`…/search`), which has its own burst limit (see `retry`). */
function isSearch(path: string): boolean {
  return (path.split('?')[0] ?? '').endsWith('/search')
}
