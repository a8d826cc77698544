/** The component's look; class names are Unified's (`unified_vendor`...), so existing custom CSS applies. */
export const EMBED_CSS = `
.unified{--u-ink:#1c2330;--u-muted:#5b6577;--u-line:#e3e7ee;--u-accent:#3451d1;
  font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--u-ink)}
.unified *{box-sizing:border-box}
.unified_menu{display:flex;flex-wrap:wrap;gap:6px;margin:0 0 14px}
.unified_button{border:1px solid var(--u-line);border-radius:999px;padding:5px 12px;color:var(--u-muted);
  text-decoration:none;background:#fff;cursor:pointer;font-weight:500}
.unified_button:hover{color:var(--u-ink);border-color:#c9cfda}
.unified_button_active{background:var(--u-ink);border-color:var(--u-ink);color:#fff}
.unified_button_active:hover{color:#fff}
.unified_search{width:100%;padding:9px 12px;margin:0 0 14px;border:1px solid var(--u-line);border-radius:8px;font:inherit}
.unified_vendors{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:12px}
.unified_vendor{display:flex;align-items:center;gap:12px;padding:14px;border:1px solid var(--u-line);border-radius:12px;
  background:#fff;color:inherit;text-decoration:none;transition:box-shadow .15s,border-color .15s,transform .15s}
.unified_vendor:hover{border-color:#c9cfda;box-shadow:0 6px 18px rgba(16,24,40,.08);transform:translateY(-1px)}
.unified_vendor:focus-visible,.unified_button:focus-visible{outline:3px solid rgba(52,81,209,.35);outline-offset:2px}
.unified_image{width:40px;height:40px;border-radius:9px;flex:none}
.unified_vendor_inner{min-width:0}
.unified_vendor_name{font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.unified_vendor_cats{display:flex;flex-wrap:wrap;gap:4px;margin-top:3px}
.unified_vendor_cats span{font-size:11px;color:var(--u-muted);background:#f1f3f7;border-radius:4px;padding:1px 6px}
.unified_empty{color:var(--u-muted);padding:12px 0}
.unified_nocategories .unified_vendor_cats{display:none}
`
