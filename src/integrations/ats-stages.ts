/**
 * Pipeline stage names that mean the same as a unified application status, as ATS providers name their
 * default stages (Greenhouse: Application Review, Preliminary Phone Screen, Reference Check, Offer; Lever: New
 * lead, New applicant, Recruiter screen, Offer). A stage whose name says no more than "an interview" (which
 * round?) or is the customer's own maps to nothing: its name stays in `original_status`/`original_substatus`.
 */
const STAGE_STATUSES: readonly (readonly [RegExp, string])[] = [
  [/^new (lead|applicant)$/i, 'NEW'],
  [/^application review$/i, 'REVIEWING'],
  [/\bscreen(ing)?\b/i, 'SCREENING'],
  [/\b(reference|background) check\b/i, 'BACKGROUND_CHECK'],
  [/^offer$/i, 'OFFERED'],
]

/** The unified status a stage name means, or undefined when it means none for sure. */
export function statusOfStageName(name: string | null | undefined): string | undefined {
  if (!name) return undefined
  return STAGE_STATUSES.find(([pattern]) => pattern.test(name.trim()))?.[1]
}
