import { escapeHtml, page } from './html.js'

/** Shown when the flow has no redirect to go to: it ends here, and says how. */
export function resultPage(o: { ok: boolean; title: string; message: string; detail?: string }): string {
  const detail = o.detail ? `<p><code>${escapeHtml(o.detail)}</code></p>` : ''
  const body = `<h1 class="${o.ok ? 'ok' : ''}">${escapeHtml(o.title)}</h1>
<p${o.ok ? '' : ' class="error" role="alert"'}>${escapeHtml(o.message)}</p>${detail}
<p class="hint">You can close this window.</p>`
  return page({ title: o.title, body })
}
