import { type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox'
import { type Category, DateTime, type ObjectModel, OpenEnum, Raw, READ_ONLY_FIELDS } from './common.js'

/** Field builders shared by every category's models: every unified field is optional (the SDK's models). */
export const s = () => Type.Optional(Type.String())
export const n = () => Type.Optional(Type.Number())
export const b = () => Type.Optional(Type.Boolean())
export const d = () => Type.Optional(DateTime)
export const strings = () => Type.Optional(Type.Array(Type.String()))
export const list = <T extends TSchema>(item: T) => Type.Optional(Type.Array(item))
export const openEnum = (values: readonly string[], description: string) =>
  Type.Optional(OpenEnum(values, description))

/** `id`, `created_at`, `updated_at` first, then the object's fields, then `raw`. */
export function base<P extends TProperties>(props: P) {
  return { id: s(), created_at: d(), updated_at: d(), ...props, raw: Type.Optional(Raw) }
}

/** A postal address as the HRIS, ATS and CRM models nest it (`PropertyHrisEmployeeAddress` and kin). */
export const Address = () =>
  Type.Optional(
    Type.Object(
      {
        address1: s(),
        address2: s(),
        city: s(),
        region: s(),
        region_code: s(),
        postal_code: s(),
        country: s(),
        country_code: s(),
      },
      { additionalProperties: false },
    ),
  )

export const METADATA_FORMATS = [
  'TEXT',
  'NUMBER',
  'DATE',
  'BOOLEAN',
  'FILE',
  'TEXTAREA',
  'SINGLE_SELECT',
  'MULTIPLE_SELECT',
  'MEASUREMENT',
  'PRICE',
  'YES_NO',
  'CURRENCY',
  'URL',
] as const

const JsonScalarOrObject = [
  Type.Record(Type.String(), Type.Unknown()),
  Type.String(),
  Type.Number(),
  Type.Boolean(),
]
/** A metadata value: an object, a scalar, or a list of them (`HrisMetadata.value` and kin). */
const MetadataValue = Type.Union([...JsonScalarOrObject, Type.Array(Type.Union(JsonScalarOrObject))])

/**
 * `metadata` of the HRIS, ATS and CRM models: a list of provider custom fields, unlike analytics' map
 * (`HrisMetadata`, `AtsMetadata`, `CrmMetadata` in the SDK share this shape).
 */
export const MetadataList = () =>
  list(
    Type.Object(
      {
        id: s(),
        namespace: s(),
        slug: s(),
        format: openEnum(METADATA_FORMATS, 'How the value is meant to be read.'),
        value: Type.Optional(MetadataValue),
        extra_data: Type.Optional(MetadataValue),
      },
      { additionalProperties: false },
    ),
  )

/** The body accepted on writes: the model without read-only fields (the SDK may send them; they are ignored). */
function writeSchemaOf(schema: TObject, id: string, closedEnums: Record<string, readonly string[]> = {}) {
  const props: TProperties = {}
  for (const [key, value] of Object.entries(schema.properties)) {
    if ((READ_ONLY_FIELDS as readonly string[]).includes(key)) continue
    const values = closedEnums[key]
    props[key] = values ? Type.Optional(Type.Union(values.map((v) => Type.Literal(v)))) : value
  }
  // Read-only fields are accepted and ignored (sdk-contract R13).
  for (const key of READ_ONLY_FIELDS) props[key] = Type.Optional(Type.String())
  return Type.Object(props, { $id: id, additionalProperties: false })
}

export interface ModelDefinition {
  readonly objectType: string
  readonly category: Category
  readonly path: string
  readonly singular: string
  readonly plural: string
  readonly schema: TObject
  readonly operations: ObjectModel['operations']
  readonly filters: ObjectModel['filters']
  readonly personalFields?: readonly string[]
  /** Top-level enums refused on write when outside their values (open on read, sdk-contract R9). */
  readonly closedEnums?: Record<string, readonly string[]>
}

/** One registry entry: the write schema and the field names are derived from the read schema. */
export function defineModel(def: ModelDefinition): ObjectModel {
  return {
    objectType: def.objectType,
    category: def.category,
    path: def.path,
    singular: def.singular,
    plural: def.plural,
    schema: def.schema,
    writeSchema: writeSchemaOf(def.schema, `${def.schema.$id}Input`, def.closedEnums),
    operations: def.operations,
    filters: def.filters,
    personalFields: def.personalFields ?? [],
    fieldNames: Object.keys(def.schema.properties),
  }
}

export const ALL_OPS = ['list', 'get', 'create', 'update', 'patch', 'remove'] as const
