/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

/** Two letters standing in for a logo: no external image requests from hosted pages. */
export function initials(name: string): string {
  const words = name.split(/[\s_-]+/).filter(Boolean)
  const letters = words.length > 1 ? `${words[0]![0]}${words[1]![0]}` : name.slice(0, 2)
  return letters.toUpperCase()
}

const CSS = `
:root{color-scheme:light;--ink:#1c2330;--muted:#5b6577;--line:#dfe3ea;--bg:#f4f6f9;--accent:#3451d1;--bad:#b42318;--good:#067647}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:var(--bg);
  font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink)}
main{width:min(440px,calc(100vw - 32px));background:#fff;border:1px solid var(--line);border-radius:14px;
  box-shadow:0 10px 30px rgba(16,24,40,.08);padding:28px 28px 24px}
header{display:flex;align-items:center;gap:14px;margin-bottom:18px}
.badge{width:44px;height:44px;border-radius:10px;display:flex;align-items:center;justify-content:center;
  font-weight:700;letter-spacing:.5px;color:#fff;flex:none}
h1{font-size:19px;margin:0}
header p{margin:2px 0 0;color:var(--muted);font-size:13px}
label{display:block;font-weight:600;font-size:13px;margin:16px 0 6px}
.hint{display:block;font-weight:400;color:var(--muted);font-size:12px;margin-top:2px}
input,select{width:100%;padding:10px 12px;border:1px solid var(--line);border-radius:8px;font:inherit;background:#fff}
input:focus,select:focus,button:focus-visible,a:focus-visible{outline:3px solid rgba(52,81,209,.35);outline-offset:1px;border-color:var(--accent)}
.actions{display:flex;gap:10px;align-items:center;justify-content:flex-end;margin-top:22px}
button{background:var(--accent);color:#fff;border:0;border-radius:8px;padding:10px 18px;font:inherit;font-weight:600;cursor:pointer}
button:hover{filter:brightness(1.08)}
a.secondary{color:var(--muted);text-decoration:none;padding:10px 8px}
a.secondary:hover{color:var(--ink)}
.error{background:#fef3f2;border:1px solid #fecdca;color:var(--bad);border-radius:8px;padding:10px 12px;font-size:14px;margin-top:6px}
.ok{color:var(--good)}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px;background:var(--bg);padding:2px 6px;border-radius:5px;word-break:break-all}
footer{margin-top:22px;color:var(--muted);font-size:12px;text-align:center}
`

export interface PageOptions {
  readonly title: string
  readonly body: string
  readonly lang?: string
}

/** A complete, self-contained page: inline styles, no scripts, nothing fetched from elsewhere. */
export function page(o: PageOptions): string {
  return `<!doctype html>
<html lang="${escapeHtml(o.lang ?? 'en')}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(o.title)}</title>
<style>${CSS}</style>
</head>
<body><main>${o.body}<footer>Secured by Unigate</footer></main></body>
</html>`
}

export function integrationHeader(name: string, color: string | undefined, subtitle: string): string {
  return `<header><div class="badge" style="background:${escapeHtml(safeColor(color))}" aria-hidden="true">${escapeHtml(
    initials(name),
  )}</div><div><h1>${escapeHtml(name)}</h1><p>${escapeHtml(subtitle)}</p></div></header>`
}

/** Only plain hex colors reach a style attribute. */
export function safeColor(color: string | undefined): string {
  return color && /^#[0-9a-fA-F]{3,8}$/.test(color) ? color : '#3451d1'
}
