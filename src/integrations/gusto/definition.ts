import { Type } from '@sinclair/typebox'
import { ApiError } from '../../errors.js'
import { withoutTrailingSlashes } from '../trailing-slashes.js'
import { defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { benefitHandlers } from './benefits.js'
import { companyHandlers, companyPath } from './company.js'
import { deductionHandlers } from './deductions.js'
import { employeeHandlers } from './employees.js'
import { GUSTO_API_URL, gustoOAuth2 } from './oauth.js'
import { groupHandlers, locationHandlers } from './organization.js'
import { GUSTO_PAGING } from './paging.js'
import { payslipHandlers } from './payslips.js'

/**
 * The API version every call asks for (`X-Gusto-API-Version`), the one the shapes here were read from;
 * without it Gusto uses the application's minimum version, which may answer other shapes.
 */
export const GUSTO_API_VERSION = '2025-06-15'

/**
 * `GET /v1/token_info` (get-v1-token-info): the token's `scope` and its `resource`, `{type: "Company", uuid}` for a
 * company token; `GET /v1/companies/{company_uuid}` (get-v1-companies): the Company, always with its `uuid`
 * (Gusto/gusto-typescript-client@1fa8f82cfc47d70873cf22d57b14691e29879b2f:.speakeasy/logs/changes/new.openapi.yaml;
 * emulators/gusto/routes.ts). A null resource is kept: it is a token of another kind, refused as such below.
 */
const TOKEN_INFO = Type.Object({
  scope: Type.String(),
  resource: Type.Union([
    Type.Null(),
    Type.Object({ type: Type.String(), uuid: Type.Optional(Type.String()) }),
  ]),
})
const NULLABLE_STRING = Type.Optional(Type.Union([Type.String(), Type.Null()]))
const COMPANY = Type.Object({
  uuid: Type.String(),
  name: NULLABLE_STRING,
  trade_name: NULLABLE_STRING,
  join_date: NULLABLE_STRING,
})

/**
 * Gusto (App Integrations API) with OAuth: the connected company, its employees, locations, departments as
 * groups, payslips from processed payrolls, company benefits, and deductions (employee benefit enrollments
 * and garnishments). Read only.
 */
export default defineIntegration({
  type: 'gusto',
  name: 'Gusto',
  categories: ['hris'],
  description: 'Gusto payroll: employees, company, locations, departments, payslips, benefits, deductions.',
  webUrl: 'https://gusto.com',
  apiDocsUrl: 'https://docs.gusto.com/app-integrations/reference',
  color: '#F45D48',
  rateLimitDescription:
    '200 requests per minute per OAuth grant (60-second rolling window); 429 with Retry-After.',
  auth: gustoOAuth2,
  baseUrl: (c) => withoutTrailingSlashes(c.api_url?.trim() || GUSTO_API_URL),
  authHeaders: (c) => ({
    ...(c.access_token ? { authorization: `Bearer ${c.access_token}` } : {}),
    'x-gusto-api-version': GUSTO_API_VERSION,
  }),
  /** The token's company (`GET /v1/token_info`), then the company itself, for its name and join date. */
  async verify(client) {
    const info = await verifyCall(client, { path: '/v1/token_info' }, TOKEN_INFO)
    const id = info.resource?.type === 'Company' ? info.resource.uuid : undefined
    if (!id) {
      // The answer's resource type is not named: the message reaches the OAuth callback page, open to anyone
      // with the link, and api_url may be an internal address (DESIGN 9: nothing echoes what one answered).
      throw new ApiError(
        400,
        `auth: this Gusto token is not a company token (its resource is ${info.resource ? 'not a Company' : 'none'}); authorize a company`,
      )
    }
    const company = await verifyCall(
      client,
      { path: companyPath(id) },
      COMPANY,
      'GET /v1/companies/{company_uuid}',
    )
    return {
      company_id: id,
      ...(company.trade_name || company.name
        ? { company_name: String(company.trade_name || company.name) }
        : {}),
      ...(company.join_date ? { join_date: company.join_date } : {}),
    }
  },
  // 429 with Retry-After when the per-grant window is used up (docs.gusto.com/embedded-payroll/docs/rate-limits).
  retry: { on: [429, 502, 503, 504], afterHeaders: ['retry-after'] },
  // Unigate walks Gusto's pages itself: a raw `page` would read one page again and again (a payroll's walk
  // ends only on a short page).
  rawOwned: { page: GUSTO_PAGING, per: GUSTO_PAGING },
  objects: {
    hris_employee: employeeHandlers,
    hris_company: companyHandlers,
    hris_payslip: payslipHandlers,
    hris_benefit: benefitHandlers,
    hris_deduction: deductionHandlers,
    hris_location: locationHandlers,
    hris_group: groupHandlers,
  },
})
