import { Type } from '@sinclair/typebox'
import type { ObjectModel } from './common.js'
import { Address, ALL_OPS, base, defineModel, list, MetadataList, openEnum, s, strings } from './define.js'

/* The CRM models as the official SDK's wire contract has them (`CrmContact` and its nested objects). */

const Email = Type.Object(
  { email: s(), type: openEnum(['WORK', 'HOME', 'OTHER'], 'Kind of address.') },
  { additionalProperties: false },
)
const Telephone = Type.Object(
  {
    telephone: Type.String(),
    type: openEnum(['WORK', 'HOME', 'OTHER', 'FAX', 'MOBILE'], 'Kind of number.'),
  },
  { additionalProperties: false },
)

export const CrmContact = Type.Object(
  base({
    address: Address(),
    company: s(),
    company_ids: strings(),
    deal_ids: strings(),
    department: s(),
    emails: list(Email),
    first_name: s(),
    image_url: s(),
    last_name: s(),
    link_urls: strings(),
    metadata: MetadataList(),
    name: s(),
    telephones: list(Telephone),
    title: s(),
    user_id: s(),
  }),
  { $id: 'CrmContact', additionalProperties: false },
)

/** Operations and list filters follow the SDK's operations (`listCrmContacts` and kin). */
export const CRM_MODELS: readonly ObjectModel[] = [
  defineModel({
    objectType: 'crm_contact',
    category: 'crm',
    path: 'contact',
    singular: 'CrmContact',
    plural: 'CrmContacts',
    schema: CrmContact,
    operations: ALL_OPS,
    filters: { company_id: 'string', deal_id: 'string', user_id: 'string' },
    personalFields: [
      'address',
      'emails',
      'first_name',
      'image_url',
      'last_name',
      'link_urls',
      'name',
      'telephones',
    ],
  }),
]
