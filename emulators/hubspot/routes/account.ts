import type { FastifyInstance } from 'fastify'
import { ACCOUNT_TIME_ZONE } from '../constants.js'
import type { HubspotState } from '../state.js'

/**
 * `GET /account-info/v3/details`: the account's id, time zone and currency, for any token (scope `oauth`)
 * (HubSpot/HubSpot-public-api-spec-collection@99893791383254f52aa07662baeb98aad65cc710:
 * PublicApiSpecs/Account/Account Info/Rollouts/144923/v3/accountInfo.json, PortalInformationResponse).
 */
export function registerAccountRoutes(app: FastifyInstance, state: HubspotState): void {
  app.get('/account-info/v3/details', async () => ({
    portalId: state.options.portalId,
    accountType: 'STANDARD',
    timeZone: ACCOUNT_TIME_ZONE,
    companyCurrency: 'USD',
    additionalCurrencies: [],
    utcOffset: '-05:00',
    utcOffsetMilliseconds: -18_000_000,
    uiDomain: 'app.hubspot.com',
    dataHostingLocation: 'na1',
  }))
}
