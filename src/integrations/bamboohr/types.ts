/**
 * BambooHR API shapes, as the official OpenAPI description has them (BambooHR/bhr-api-php
 * @a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml). Values in reports and employee reads are
 * strings (numbers and dates included); an empty date is `0000-00-00`.
 */

/** One employee as `POST /v1/reports/custom` or `GET /v1/employees/{id}` answers it: `id` plus the asked fields. */
export type BamboohrEmployee = { id: string; [field: string]: string | null | undefined }

/** `POST /v1/reports/custom?format=JSON` (`RequestCustomReportResponse`). */
export type BamboohrReport = {
  title?: string
  fields: { id: string; type: string; name: string }[]
  employees: BamboohrEmployee[]
}

/** `GET /v1/company_information` (`CompanyInformation`). */
export type BamboohrCompany = {
  legalName?: string
  displayName?: string
  address?: { line1?: string; line2?: string; city?: string; state?: string; zip?: string }
  phone?: string
}

/** One option of a list field (`ListFieldOption`). */
export type BamboohrListOption = {
  id: number
  name: string
  archived: 'yes' | 'no' | string
  createdDate?: string | null
  archivedDate?: string | null
}

/**
 * `GET /v1/meta/lists` answers an array of these (`ListFieldDetail`; `fieldId` is typed a string there). The
 * connector finds a list by its alias and never reads `fieldId`, so a number from an older account would do too.
 */
export type BamboohrListField = {
  fieldId: string | number
  alias?: string
  name: string
  manageable?: string
  multiple?: string
  options: BamboohrListOption[]
}

/** `GET /v1/benefit/company_benefit` answers `{companyBenefits: [...]}` (`CompanyBenefitSummary`). */
export type BamboohrCompanyBenefit = {
  id: string
  name: string
  type: string
  benefitVendorId?: string | null
  deductionTypeId?: string | null
  companyDeductionId?: string | null
  startDate?: string | null
  endDate?: string | null
  allowsCatchUp?: boolean | null
}
