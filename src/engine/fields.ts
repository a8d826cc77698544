import { badRequest } from '../errors.js'
import type { FieldPlan } from '../integrations/types.js'
import type { ObjectModel, UnifiedRecord } from '../models/index.js'
import { isoString } from './dates.js'

/** What the caller listed in `fields` (spec section 7), validated against the model. */
export interface FieldSelection {
  /** Undefined when `fields` was not given: all fast fields, no `raw`. */
  readonly listed?: ReadonlySet<string>
  readonly raw: boolean
  readonly rawNames: readonly string[]
}

const NOTHING_LISTED: FieldSelection = Object.freeze({ raw: false, rawNames: Object.freeze([]) })

/**
 * What each model keeps parsed: at most SELECTIONS_KEPT texts of at most KEPT_CHARACTERS characters in all;
 * past either the model's memo starts over, and a text longer than LONGEST_KEPT_TEXT is parsed each time. A
 * list of every field of the largest model is about 500 characters, but any `raw.<name>` is valid, so callers
 * who vary `fields` could otherwise fill the memo with long texts (256 texts of 2,000 characters held 7.5 MB
 * per model, with their sets and shapers).
 */
const SELECTIONS_KEPT = 256
const KEPT_CHARACTERS = 16_384
const LONGEST_KEPT_TEXT = 2048

interface ModelSelections {
  readonly byText: Map<string, FieldSelection>
  characters: number
}
const selectionsByModel = new WeakMap<ObjectModel, ModelSelections>()

/**
 * `fields` arrives repeated (`fields=a&fields=b`, the SDK) or comma-joined (`fields=a,b`, curl): accept both.
 * The same text answers the same frozen selection, parsed once per model: a caller's usual `fields` then costs
 * a lookup, and every request of it shares one `listed` set, on which a connector may key what it builds once
 * per field set (PostHog's event columns and row mapper, HubSpot's contact mapper, the engine's shaper).
 * Nothing may change a selection.
 */
export function parseFields(
  value: string | readonly string[] | undefined,
  model: ObjectModel,
): FieldSelection {
  if (value === undefined) return NOTHING_LISTED
  const text = typeof value === 'string' ? value : value.join(',')
  if (text.length > LONGEST_KEPT_TEXT) return selectionOf(text, model)
  let kept = selectionsByModel.get(model)
  if (!kept) {
    kept = { byText: new Map(), characters: 0 }
    selectionsByModel.set(model, kept)
  }
  const known = kept.byText.get(text)
  if (known) return known
  const selection = selectionOf(text, model)
  if (kept.byText.size >= SELECTIONS_KEPT || kept.characters + text.length > KEPT_CHARACTERS) {
    kept.byText.clear()
    kept.characters = 0
  }
  kept.byText.set(text, selection)
  kept.characters += text.length
  return selection
}

function selectionOf(text: string, model: ObjectModel): FieldSelection {
  const names = text
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '')
  if (names.length === 0) return NOTHING_LISTED
  // Each `raw.<name>` once: a connector picks every name from every record of a page.
  const rawNames = new Set<string>()
  for (const name of names) {
    if (name.startsWith('raw.')) {
      if (name.length === 4) throw badRequest("fields: 'raw.' needs a provider field name, as in raw.<name>")
      rawNames.add(name.slice(4))
    } else if (!model.fieldNames.includes(name)) {
      throw badRequest(
        `fields: unknown field '${name}' for ${model.objectType}; allowed: ${model.fieldNames.join(', ')}, raw.<provider field>`,
      )
    }
  }
  const listed: ReadonlySet<string> = new Set(names)
  return Object.freeze({ listed, raw: listed.has('raw'), rawNames: Object.freeze([...rawNames]) })
}

/**
 * Decides which slow fields to fetch, exactly as the opt-in table of spec section 7 says: without `fields`
 * only an opted-in workspace gets them; with `fields`, only the slow fields listed (including `raw.<slow>`).
 */
export function planFields(
  selection: FieldSelection,
  slowFields: readonly string[],
  optIn: boolean,
): FieldPlan {
  const slow = selection.listed
    ? slowFields.filter((f) => selection.listed?.has(f))
    : optIn
      ? [...slowFields]
      : []
  return {
    raw: selection.raw,
    rawNames: selection.rawNames,
    slow: new Set(slow),
    ...(selection.listed ? { listed: selection.listed } : {}),
  }
}

/** Dates become ISO-8601 UTC strings; `null` and `undefined` disappear (the SDK rejects null, R7). */
function clean(value: unknown): unknown {
  // Most values are strings or numbers: answer those before any object test.
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      return Number.isFinite(value) ? value : undefined
    case 'undefined':
      return undefined
  }
  if (value === null) return undefined
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : isoString(value)
  if (Array.isArray(value)) {
    const out: unknown[] = []
    for (const item of value) {
      const c = clean(item)
      if (c !== undefined) out.push(c)
    }
    return out
  }
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue
      const c = clean((value as Record<string, unknown>)[k])
      if (c !== undefined) out[k] = c
    }
    return out
  }
  return value
}

function pick(raw: Record<string, unknown>, names: readonly string[]): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {}
  for (const name of names) if (name in raw) out[name] = raw[name]
  return Object.keys(out).length > 0 ? out : undefined
}

/**
 * Sets one field of a response record: its value cleaned (`clean`), left out when missing. An empty list is
 * left out like a missing value: a provider without the data answers it either way (HubSpot leaves out a
 * contact's companies, Pipedrive answers none as []), the record says it one way.
 */
export function putShaped(record: Record<string, unknown>, name: string, value: unknown): void {
  const cleaned = clean(value)
  if (cleaned !== undefined && !(Array.isArray(cleaned) && cleaned.length === 0)) record[name] = cleaned
}

/**
 * The fields of `model` that `listed` names, `raw` left out, in the model's order: the fields and order of
 * the records recordShaper makes when `fields` was given, for a handler that builds them itself (shapedPage).
 */
export function listedInOrder(model: ObjectModel, listed: ReadonlySet<string>): string[] {
  return model.fieldNames.filter((name) => name !== 'raw' && listed.has(name))
}

/** Pages a handler built in the response's shape (`shapedPage`). */
const shapedPages = new WeakSet<readonly unknown[]>()

/**
 * Marks a page whose records a handler built already as recordShaper would shape them: new objects that
 * nothing else holds, each holding only fields recordShaper keeps for the request (never `raw`), in the
 * model's order, each set with `putShaped`. runOperation sends such a page as it is where the request listed
 * its fields and no `raw` or `raw.<name>`, and shapes it as always elsewhere: copying every record of a page
 * into a new one was 6-8 % of the unified list's CPU per request (issue 12, BENCHMARKS.md).
 */
export function shapedPage<T extends readonly unknown[]>(records: T): T {
  shapedPages.add(records)
  return records
}

/** Whether a handler built `records` in the response's shape (`shapedPage`). */
export function isShapedPage(records: readonly unknown[]): boolean {
  return shapedPages.has(records)
}

/** Turns one handler record into the response record; made once per field set, used for every record. */
export type RecordShaper = (record: UnifiedRecord) => Record<string, unknown>

/**
 * Shapers of selections that list their fields, whose output depends on the selection alone: parseFields
 * answers one selection per model and `fields` text, so each is made once and every request of it shares
 * one function.
 */
const shapersOfListed = new WeakMap<FieldSelection, { model: ObjectModel; shaper: RecordShaper }>()

/**
 * The shaper for one request: listed fields only (or every fast field), `raw` only when asked, slow fields
 * only when planned. `raw` keeps the provider's data unmodified. Which fields go out is decided once here,
 * not again for every record of a page, and only once for a listed field set (shapersOfListed).
 */
export function recordShaper(
  model: ObjectModel,
  selection: FieldSelection,
  plan: FieldPlan,
  slowFields: readonly string[],
): RecordShaper {
  if (!selection.listed) return newRecordShaper(model, selection, plan, slowFields)
  const known = shapersOfListed.get(selection)
  if (known?.model === model) return known.shaper
  const shaper = newRecordShaper(model, selection, plan, slowFields)
  shapersOfListed.set(selection, { model, shaper })
  return shaper
}

function newRecordShaper(
  model: ObjectModel,
  selection: FieldSelection,
  plan: FieldPlan,
  slowFields: readonly string[],
): RecordShaper {
  const names = model.fieldNames.filter(
    (name) =>
      name !== 'raw' &&
      (selection.listed ? selection.listed.has(name) : !(slowFields.includes(name) && !plan.slow.has(name))),
  )
  const { rawNames } = selection
  const rawWanted = selection.raw || rawNames.length > 0
  return (record) => {
    const out: Record<string, unknown> = {}
    for (const name of names) putShaped(out, name, record[name])
    if (rawWanted) {
      const raw = record.raw
      if (raw && typeof raw === 'object') {
        const chosen = selection.raw ? raw : pick(raw, rawNames)
        if (chosen) out.raw = chosen
      }
    }
    return out
  }
}

/** One record shaped for the response (see recordShaper, which a page should use once for all records). */
export function projectRecord(
  record: UnifiedRecord,
  model: ObjectModel,
  selection: FieldSelection,
  plan: FieldPlan,
  slowFields: readonly string[],
): Record<string, unknown> {
  return recordShaper(model, selection, plan, slowFields)(record)
}
