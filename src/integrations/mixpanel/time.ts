import type { HandlerContext } from '../types.js'
import { isTimeZone } from '../zones.js'

/**
 * The zones a Mixpanel project's data is in. Query API reports are always computed in the project's
 * time zone. The Raw Event Export reads `from_date`/`to_date` in UTC and stores `time` as a UTC epoch,
 * except for projects created before 2023-01-01, whose dates are read, and whose `time` is stored, as the
 * project's local wall clock (docs.mixpanel.com/docs/export-methods). The project zone is learned when
 * the connection is verified (`/api/app/me`); whether the project predates 2023 is the connection's
 * `project_created_before_2023` setting, since no API tells.
 */
export interface MixpanelZones {
  /** The zone report days (Query API) are counted in. */
  readonly report: string
  /** The zone export days are read in and `time` is stored in. */
  readonly export: string
}

export function zonesOf(ctx: Pick<HandlerContext, 'credentials' | 'settings'>): MixpanelZones {
  const project = ctx.settings.timezone && isTimeZone(ctx.settings.timezone) ? ctx.settings.timezone : 'UTC'
  return { report: project, export: ctx.credentials.project_created_before_2023 === 'yes' ? project : 'UTC' }
}
