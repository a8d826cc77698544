import { Type } from '@sinclair/typebox'
import { withoutTrailingSlashes } from '../trailing-slashes.js'
import { type AuthField, defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { contactHandlers } from './contacts.js'
import { hubspotOAuth2 } from './oauth.js'

const DEFAULT_API_URL = 'https://api.hubapi.com'

const SHARED_FIELDS: readonly AuthField[] = [
  {
    name: 'api_url',
    label: 'API base address',
    secret: false,
    required: false,
    description: `Default: ${DEFAULT_API_URL} (every HubSpot account, whatever its data hosting region)`,
  },
]

/**
 * `PortalInformationResponse`: `portalId` (an integer), `timeZone` and `uiDomain` among its required fields
 * (HubSpot/HubSpot-public-api-spec-collection@99893791383254f52aa07662baeb98aad65cc710:
 * PublicApiSpecs/Account/Account Info/Rollouts/144923/v3/accountInfo.json; emulators/hubspot/routes/account.ts).
 */
const ACCOUNT_DETAILS = Type.Object({
  portalId: Type.Integer(),
  timeZone: Type.String(),
  uiDomain: Type.String(),
})

/**
 * HubSpot CRM contacts (CRM v3 objects API). A private app token or an OAuth token, both sent as a Bearer
 * token (https://developers.hubspot.com/docs/guides/apps/authentication/intro-to-auth).
 */
export default defineIntegration({
  type: 'hubspot',
  name: 'HubSpot',
  categories: ['crm'],
  description: 'HubSpot CRM: contacts, with their company and deal associations.',
  webUrl: 'https://www.hubspot.com',
  apiDocsUrl: 'https://developers.hubspot.com/docs/api-reference/crm-contacts-v3',
  color: '#FF7A59',
  rateLimitDescription:
    'Per app and account: 100 requests per 10 seconds (190 on Professional and Enterprise), 250,000 to 1,000,000 a day; CRM search 4 requests per second per account and at most 10,000 results per query, which Unigate pages past in id order (sorted lists stop there).',
  auth: {
    kind: 'api_key',
    fields: [
      {
        name: 'token',
        label: 'Private app access token',
        secret: true,
        required: true,
        description:
          'The access token of a HubSpot private app (Settings > Integrations > Private Apps) with the crm.objects.contacts.read and crm.objects.contacts.write scopes',
      },
      ...SHARED_FIELDS,
    ],
  },
  // Or OAuth, when the workspace configured a HubSpot app (the auth endpoint then prefers it).
  oauth: hubspotOAuth2(SHARED_FIELDS),
  baseUrl: (c) => withoutTrailingSlashes(c.api_url ?? DEFAULT_API_URL),
  authHeaders: (c) => ({ authorization: `Bearer ${c.access_token ?? c.token ?? ''}` }),
  // The account's id and time zone; any token reads it (Account Info v3 spec: scope `oauth`).
  async verify(client) {
    const account = await verifyCall(client, { path: '/account-info/v3/details' }, ACCOUNT_DETAILS)
    return {
      portal_id: String(account.portalId),
      time_zone: account.timeZone,
      ui_domain: account.uiDomain,
    }
  },
  /**
   * HubSpot's 429 carries no Retry-After; `X-HubSpot-RateLimit-Interval-Milliseconds` is the rolling window
   * (10 s) the limit counts over, the longest wait that clears it (platform usage guidelines,
   * https://developers.hubspot.com/docs/developer-tooling/platform/usage-guidelines).
   */
  retry: {
    on: [429, 502, 503, 504],
    afterHeaders: ['retry-after'],
    afterMillisecondsHeaders: ['x-hubspot-ratelimit-interval-milliseconds'],
    // A 429 naming `policyName` DAILY is the day's requests spent; its 10 s window header clears nothing
    // (usage guidelines: "Daily limits reset at midnight based on your time zone setting").
    dailyQuotaSpent: (status, body) =>
      status === 429 && (body as { policyName?: unknown } | undefined)?.policyName === 'DAILY',
  },
  // The account's time zone, kept by verification from Account Info.
  dailyQuotaTimeZone: (settings) => settings.time_zone,
  objects: {
    crm_contact: contactHandlers,
  },
})
