import { Type } from '@sinclair/typebox'
import { withoutTrailingSlashes } from '../trailing-slashes.js'
import { defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { benefitHandlers } from './benefits.js'
import { companyHandlers } from './company.js'
import { employeeHandlers } from './employees.js'
import { groupHandlers, locationHandlers } from './lists.js'

/** The API key gateway (documentation.bamboohr.com/docs/getting-started): `{api_url}/{companyDomain}/v1`. */
const DEFAULT_API_URL = 'https://api.bamboohr.com/api/gateway.php'

/**
 * `CompanyInformation`: "basic profile information for the company, including its legal name, display name,
 * primary address, and contact phone number" (BambooHR/bhr-api-php@a6a10ca:specs/public.yaml,
 * get-company-information; emulators/bamboohr/routes.ts). The spec lists no required fields, so the two names
 * are checked where given, and the answer must carry at least one of them: a company always has a name.
 */
const NAME = Type.Union([Type.String(), Type.Null()])
const COMPANY_INFORMATION = Type.Union([
  Type.Object({ legalName: NAME, displayName: Type.Optional(NAME) }),
  Type.Object({ legalName: Type.Optional(NAME), displayName: NAME }),
])

/**
 * BambooHR with an API key: employees (custom reports and employee reads), the company, departments and
 * divisions as groups, locations and benefit plans from its list fields and benefits API. It has no payroll
 * API for keys: payslips answer 501. Deductions answer 501 too, though keys may read enrollments
 * (`GET /v1/benefit/employee_benefit`, filters in a JSON body on a GET): not read yet.
 */
export default defineIntegration({
  type: 'bamboohr',
  name: 'BambooHR',
  categories: ['hris'],
  description: 'BambooHR: employees, company, departments and divisions, locations, benefit plans.',
  webUrl: 'https://www.bamboohr.com',
  apiDocsUrl: 'https://documentation.bamboohr.com/reference',
  color: '#73C41D',
  rateLimitDescription:
    'Unpublished; BambooHR answers 429 or 503 with Retry-After when a key sends too much, which is retried.',
  auth: {
    kind: 'api_key',
    fields: [
      {
        name: 'api_key',
        label: 'API key',
        secret: true,
        required: true,
        description:
          'A BambooHR API key (your name > API Keys); it reads what its user may see, so use an admin user',
      },
      {
        name: 'company_domain',
        label: 'Company subdomain',
        secret: false,
        required: true,
        description: 'The subdomain of your BambooHR address: acme for https://acme.bamboohr.com',
      },
      {
        name: 'api_url',
        label: 'API base address',
        secret: false,
        required: false,
        description: `Default: ${DEFAULT_API_URL}`,
      },
    ],
  },
  baseUrl: (c) =>
    `${withoutTrailingSlashes(c.api_url ?? DEFAULT_API_URL)}/${encodeURIComponent((c.company_domain ?? '').trim().toLowerCase())}/v1`,
  // HTTP Basic with the key as user name and any password (documentation.bamboohr.com/docs/getting-started).
  authHeaders: (c) => ({
    authorization: `Basic ${Buffer.from(`${c.api_key ?? ''}:x`).toString('base64')}`,
  }),
  async verify(client) {
    const company = await verifyCall(client, { path: '/company_information' }, COMPANY_INFORMATION)
    const name = company.displayName ?? company.legalName
    return name ? { company_name: name } : {}
  },
  // BambooHR signals too many requests with 429 or 503 and Retry-After (BambooHR/bhr-api-php GETTING_STARTED.md).
  retry: { on: [429, 502, 503, 504], afterHeaders: ['retry-after'] },
  // BambooHR answers errors with an empty body and says why in this header (BambooHR/bhr-api-php@64a792d:examples.php).
  errorMessageHeader: 'x-bamboohr-error-message',
  objects: {
    hris_employee: employeeHandlers,
    hris_company: companyHandlers,
    hris_group: groupHandlers,
    hris_location: locationHandlers,
    hris_benefit: benefitHandlers,
  },
})
