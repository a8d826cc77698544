import { badRequest, notFound } from '../../errors.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { companyIdOf } from './company.js'
import {
  aliasOf,
  fromBamboohrGroupOption,
  fromBamboohrLocationOption,
  GROUP_LISTS,
  LOCATION_LIST,
} from './mappers.js'
import type { BamboohrListField } from './types.js'

/**
 * Departments, divisions and locations are options of BambooHR list fields (`GET /v1/meta/lists`), the one
 * place an API key can read them: the job locations API (`/v1/hris/org/locations`) takes OAuth only. One call
 * answers every list in full, so lists are sliced here and are complete.
 */
export async function readListFields(ctx: HandlerContext): Promise<BamboohrListField[]> {
  const lists = await ctx.client.json<BamboohrListField[]>({
    path: '/meta/lists',
    query: { ...ctx.rawParams },
  })
  if (!Array.isArray(lists)) throw new TypeError('meta/lists answered something other than a list')
  return lists
}

const page = <T>(rows: readonly T[], q: ListQuery) => rows.slice(q.offset, q.offset + q.limit)

async function allGroups(ctx: HandlerContext) {
  const company = companyIdOf(ctx.credentials)
  return (await readListFields(ctx)).flatMap((field) => {
    const alias = aliasOf(field)
    return GROUP_LISTS[alias] ? field.options.map((o) => fromBamboohrGroupOption(alias, o, company)) : []
  })
}

const GROUP_TYPES = Object.values(GROUP_LISTS)

/** The group type a `type` filter names, upper-cased, or a 400 naming the types BambooHR has. */
function groupType(q: ListQuery): string | undefined {
  const type = typeof q.filters.type === 'string' ? q.filters.type.toUpperCase() : undefined
  if (type !== undefined && !GROUP_TYPES.includes(type)) {
    throw badRequest(
      `type: '${q.filters.type}' is not a BambooHR group type; use ${GROUP_TYPES.join(' or ')}`,
    )
  }
  return type
}

export const groupHandlers: ObjectHandlers = {
  listIsComplete: true,
  listParams: [],
  filters: ['type'],
  checkList: (q) => void groupType(q),
  async list(ctx, q) {
    const type = groupType(q)
    const groups = await allGroups(ctx)
    return page(type ? groups.filter((g) => g.type === type) : groups, q)
  },
  async get(ctx, id) {
    const found = (await allGroups(ctx)).find((g) => g.id === id)
    if (!found) {
      throw notFound(
        `get hris_group ${id}: not found at BambooHR (group ids are <list>:<option id>, with list ${Object.keys(GROUP_LISTS).join(' or ')})`,
      )
    }
    return found
  },
}

async function allLocations(ctx: HandlerContext) {
  const company = companyIdOf(ctx.credentials)
  const field = (await readListFields(ctx)).find((f) => aliasOf(f) === LOCATION_LIST)
  return (field?.options ?? []).map((o) => fromBamboohrLocationOption(o, company))
}

export const locationHandlers: ObjectHandlers = {
  listIsComplete: true,
  listParams: [],
  filters: [],
  async list(ctx, q) {
    return page(await allLocations(ctx), q)
  },
  async get(ctx, id) {
    const found = (await allLocations(ctx)).find((l) => l.id === id)
    if (!found) throw notFound(`get hris_location ${id}: not found at BambooHR`)
    return found
  },
}

/** The name of the list option an employee filter names, which is how reports print an employee's value. */
export function optionName(
  lists: readonly BamboohrListField[],
  filter: 'group_id' | 'location_id',
  id: string,
): { alias: string; name: string } | undefined {
  if (filter === 'location_id') {
    const option = lists.find((f) => aliasOf(f) === LOCATION_LIST)?.options.find((o) => String(o.id) === id)
    return option ? { alias: LOCATION_LIST, name: option.name } : undefined
  }
  const [alias, optionId] = id.split(':')
  if (!alias || !GROUP_LISTS[alias]) return undefined
  const option = lists.find((f) => aliasOf(f) === alias)?.options.find((o) => String(o.id) === optionId)
  return option ? { alias, name: option.name } : undefined
}
