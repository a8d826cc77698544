import { notFound, ProviderError } from '../../errors.js'
import { tooManyPages } from '../page-bound.js'
import { joinNames, rawListParam } from '../raw-lists.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { companyOf, companyPath } from './company.js'
import { fromGustoPayslip, parsePayslipId } from './mappers.js'
import { GUSTO_MAX_PAGES, GUSTO_MAX_PER } from './paging.js'
import type { GustoEmployeeCompensation, GustoPayroll, GustoPayrollSummary } from './types.js'

const DAY_MS = 86_400_000
/** `start_date` and `end_date` "can't be more than 1 year apart" (Gusto OpenAPI, get-v1-companies-company_id-payrolls). */
const WINDOW_DAYS = 364
/**
 * How far each window reaches into the next. `date_filter_by=check_date` "applies only to regular processed
 * payrolls": off-cycle payrolls are chosen by pay period (same operation), and one whose period straddles a
 * window edge would fall in neither window. Overlapping by a quarter keeps every period up to a quarter long
 * whole in some window (and makes the edges' inclusiveness moot); payrolls seen twice are kept once.
 */
const OVERLAP_DAYS = 91
/** "end_date can be at most 3 months in the future" (same operation): payrolls already processed for later checks. */
const AHEAD_DAYS = 90
/** No Gusto payroll predates Gusto (founded as ZenPayroll in 2011): where a company has no join date, start there. */
const EARLIEST = '2011-01-01'

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/**
 * Every processed payroll, regular (by check date) and off-cycle (by pay period), from `from` on: Gusto lists
 * one year per call, so the span to three months ahead is read a year at a time, windows overlapping. Sorted
 * by check date, then id, so positions are stable while new payrolls only add to the end.
 */
async function processedPayrolls(ctx: HandlerContext, company: string, from: string) {
  const end = Date.now() + AHEAD_DAYS * DAY_MS
  const found = new Map<string, GustoPayrollSummary>()
  const step = (WINDOW_DAYS - OVERLAP_DAYS) * DAY_MS
  if (Date.parse(`${from}T00:00:00Z`) > end) return []
  for (let start = Date.parse(`${from}T00:00:00Z`); ; start += step) {
    const last = start + WINDOW_DAYS * DAY_MS >= end
    const page = await ctx.client.json<GustoPayrollSummary[]>({
      path: `${companyPath(company)}/payrolls`,
      query: {
        processing_statuses: 'processed',
        payroll_types: 'regular,off_cycle',
        date_filter_by: 'check_date',
        start_date: day(start),
        end_date: day(Math.min(start + WINDOW_DAYS * DAY_MS, end)),
      },
    })
    if (!Array.isArray(page)) throw new TypeError('payrolls answered something other than a list')
    for (const p of page) if (p.processed !== false) found.set(p.payroll_uuid ?? String(p.uuid), p)
    if (last) break
  }
  return [...found.values()].sort(
    (a, b) =>
      String(a.check_date).localeCompare(String(b.check_date)) ||
      a.payroll_uuid.localeCompare(b.payroll_uuid),
  )
}

const INCLUDE = ['taxes', 'benefits', 'deductions']

/** One payroll with every employee's lines, 100 employees a page (the documented maximum). */
async function payrollDetail(ctx: HandlerContext, company: string, payroll: string) {
  // Gusto answers taxes and benefits only when `include` names them: a raw `include` adds to the lines every
  // payslip's details need instead of replacing them (rawListParam).
  const raw = rawListParam(ctx.rawParams, 'include')
  let detail: GustoPayroll | undefined
  const compensations: GustoEmployeeCompensation[] = []
  for (let page = 1; ; page++) {
    if (page > GUSTO_MAX_PAGES)
      throw tooManyPages('Gusto', `employees on payroll ${payroll}`, GUSTO_MAX_PAGES * GUSTO_MAX_PER)
    const got = await ctx.client.json<GustoPayroll>({
      path: `${companyPath(company)}/payrolls/${encodeURIComponent(payroll)}`,
      query: { ...raw.rest, include: joinNames(INCLUDE, raw.names).join(','), page, per: GUSTO_MAX_PER },
    })
    const { employee_compensations: rows = [], ...payrollFields } = got
    // The payroll without its list of employees: every payslip's raw holds the payroll and its own
    // compensation, and with the whole list in each, 10,000 employees (a 259 KB page from a connection's own
    // api_url) made a 259 MB answer of 1,000 payslips (a security review, reproduced).
    detail ??= payrollFields
    if (!Array.isArray(rows)) throw new TypeError('employee_compensations is not a list')
    if (rows.length > GUSTO_MAX_PER) {
      throw new ProviderError(
        502,
        `Gusto answered ${rows.length} employees on a page of payroll ${payroll} asked for ${GUSTO_MAX_PER}; not read`,
      )
    }
    for (const row of rows) compensations.push(row)
    if (rows.length < GUSTO_MAX_PER) break
  }
  // An excluded employee was skipped by that payroll and paid nothing: no payslip.
  return { payroll: detail as GustoPayroll, compensations: compensations.filter((c) => !c.excluded) }
}

/** The cursor of a position: the payroll its payslip belongs to and its index among that payroll's payslips. */
const cursorOf = (payroll: string, index: number) => `${payroll}#${index}`

function nextPayroll(payrolls: readonly GustoPayrollSummary[], i: number): string | undefined {
  const next = payrolls[i + 1]
  return next ? cursorOf(next.payroll_uuid, 0) : undefined
}

async function listPayslips(ctx: HandlerContext, q: ListQuery) {
  const company = companyOf(ctx)
  const user = typeof q.filters.user_id === 'string' ? q.filters.user_id : undefined
  // Gusto gives the processed date only: `updated_gte` keeps payrolls processed on its day or later. It
  // cannot narrow the windows: an off-cycle payroll processed today may be for a pay period of any age, and
  // Gusto finds off-cycle payrolls by pay period only, so every window from the join date is read.
  const since = q.updated_gte ? day(q.updated_gte.getTime()) : undefined
  const from = ctx.settings.join_date ?? EARLIEST
  const payrolls = (await processedPayrolls(ctx, company, from)).filter(
    (p) => !since || (p.processed_date ?? '') >= since,
  )
  const scope = `${ctx.connectionId}|gusto-payslips|${user ?? ''}|${from}|${since ?? ''}`
  const start = await ctx.cursors.walkStart(scope, q.offset)
  const [cursorPayroll, cursorIndex] = (start.cursor ?? '').split('#')
  let first = start.cursor ? payrolls.findIndex((p) => p.payroll_uuid === cursorPayroll) : 0
  let position = start.offset
  let skipWithin = Number(cursorIndex ?? 0)
  if (first < 0) {
    // The remembered payroll is gone (reversed): walk from the beginning instead.
    first = 0
    position = 0
    skipWithin = 0
  }
  const end = q.offset + q.limit
  const out = []
  for (let i = first; i < payrolls.length && position < end; i++) {
    const summary = payrolls[i] as GustoPayrollSummary
    const { payroll, compensations } = await payrollDetail(ctx, company, summary.payroll_uuid)
    const mine = compensations.filter((c) => !user || c.employee_uuid === user)
    for (let j = i === first ? skipWithin : 0; j < mine.length && position < end; j++, position++) {
      if (position >= q.offset)
        out.push(fromGustoPayslip({ ...summary, ...payroll }, mine[j] as GustoEmployeeCompensation))
      // The next page starts right after this payslip: remember where, so reading on costs no walk.
      if (position + 1 === end) {
        const next = j + 1 < mine.length ? cursorOf(summary.payroll_uuid, j + 1) : nextPayroll(payrolls, i)
        if (next) ctx.cursors.set(scope, end, next)
      }
    }
  }
  return out
}

/**
 * Payslips are employees' parts of processed payrolls (`GET /v1/companies/{id}/payrolls` and each payroll's
 * employee compensations). Gusto's per-employee pay stub list is for embedded payroll partners only, so
 * `user_id` is applied to every payroll's compensations.
 */
export const payslipHandlers: ObjectHandlers = {
  // A processed payroll is final (a correction is a new off-cycle payroll): its payslips never change.
  recordsNeverChange: true,
  listParams: ['updated_gte'],
  filters: ['user_id'],
  list: listPayslips,
  async get(ctx, id) {
    const parts = parsePayslipId(id)
    if (!parts)
      throw notFound(`get hris_payslip ${id}: not found (payslip ids are <payroll id>:<employee id>)`)
    const { payroll, compensations } = await payrollDetail(ctx, companyOf(ctx), parts.payroll)
    const mine =
      payroll.processed === false ? undefined : compensations.find((c) => c.employee_uuid === parts.employee)
    if (!mine) throw notFound(`get hris_payslip ${id}: not found at Gusto`)
    return fromGustoPayslip(payroll, mine)
  },
}
