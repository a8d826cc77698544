/**
 * The component's browser code, kept as plain ES2017 in a string: it runs on the customer's page, so it
 * uses no module system, touches only the element it is given, and builds every node with the DOM API
 * (no innerHTML) so integration names can never inject markup.
 */
export const EMBED_CLIENT = String.raw`
(function () {
  'use strict';
  var DATA = __DATA__;
  var LABELS = {analytics:'Analytics',hris:'HR & Directory',crm:'CRM',ats:'Recruiting',uc:'Call Center',
    martech:'Marketing',kms:'Knowledge Management',ticketing:'Ticketing',accounting:'Accounting',
    storage:'File Storage',commerce:'Commerce',payment:'Payment',messaging:'Messaging',calendar:'Calendar'};
  function label(c) { return LABELS[c] || c.charAt(0).toUpperCase() + c.slice(1); }
  function el(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined) n.textContent = text;
    return n;
  }
  function initials(name) {
    var w = name.split(/[\s_-]+/).filter(Boolean);
    return (w.length > 1 ? w[0][0] + w[1][0] : name.slice(0, 2)).toUpperCase();
  }
  function logo(i) {
    var color = /^#[0-9a-fA-F]{3,8}$/.test(i.color || '') ? i.color : '#3451d1';
    var svg = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" rx="9" fill="' +
      color + '"/><text x="20" y="25.5" font-family="system-ui,Arial,sans-serif" font-size="15" font-weight="700" fill="#fff" text-anchor="middle">' +
      initials(i.name).replace(/[^A-Z0-9]/g, '') + '</text></svg>';
    var img = el('img', 'unified_image');
    img.alt = '';
    img.src = i.logo_url || 'data:image/svg+xml,' + encodeURIComponent(svg);
    return img;
  }
  function authUrl(o, type) {
    var q = new URLSearchParams();
    if (o.state) q.set('state', o.state);
    q.set('redirect', '1');
    q.set('success_redirect', o.surl || location.href);
    q.set('failure_redirect', o.furl || location.href);
    if (o.uid) q.set('external_xref', o.uid);
    if (o.scopes) q.set('scopes', o.scopes);
    if (o.env && o.env !== 'Production') q.set('env', o.env);
    if (o.lang) q.set('lang', o.lang);
    if (o.link_url) return o.link_url.replace('{type}', encodeURIComponent(type));
    return o.api + '/unified/integration/auth/' + encodeURIComponent(o.wid) + '/' + encodeURIComponent(type) + '?' + q.toString();
  }
  function render(root, o, integrations) {
    var cats = [];
    integrations.forEach(function (i) { i.categories.forEach(function (c) { if (cats.indexOf(c) < 0) cats.push(c); }); });
    var wrap = el('div', 'unified' + (o.nocategories ? ' unified_nocategories' : ''));
    var menu = el('div', 'unified_menu');
    var vendors = el('div', 'unified_vendors');
    var search = null;
    var current = '';
    var buttons = [];
    function show() {
      var term = search ? search.value.trim().toLowerCase() : '';
      var shown = 0;
      Array.prototype.forEach.call(vendors.children, function (a) {
        if (!a.dataset.type) return;
        var ok = (!current || a.dataset.categories.split(',').indexOf(current) >= 0) &&
          (!term || a.dataset.name.toLowerCase().indexOf(term) >= 0);
        a.style.display = ok ? '' : 'none';
        if (ok) shown++;
      });
      empty.style.display = shown ? 'none' : '';
    }
    function tab(text, cat) {
      var b = el('a', 'unified_button' + (cat ? ' unified_button_' + cat : '') + (cat === current ? ' unified_button_active' : ''), text);
      b.href = '#';
      b.setAttribute('role', 'tab');
      b.addEventListener('click', function (e) {
        e.preventDefault();
        current = cat;
        buttons.forEach(function (x) { x.classList.toggle('unified_button_active', x === b); });
        show();
      });
      buttons.push(b);
      menu.appendChild(b);
    }
    if (cats.length > 1 && !o.notabs) {
      tab('All', '');
      cats.forEach(function (c) { tab(label(c), c); });
      wrap.appendChild(menu);
    }
    if (integrations.length > 6) {
      search = el('input', 'unified_search');
      search.type = 'search';
      search.placeholder = 'Search integrations';
      search.setAttribute('aria-label', 'Search integrations');
      search.addEventListener('input', show);
      wrap.appendChild(search);
    }
    integrations.forEach(function (i) {
      var a = el('a', 'unified_vendor ' + i.categories.map(function (c) { return 'unified_' + c; }).join(' '));
      a.href = authUrl(o, i.type);
      a.dataset.type = i.type;
      a.dataset.name = i.name;
      a.dataset.categories = i.categories.join(',');
      a.title = 'Connect ' + i.name;
      a.appendChild(logo(i));
      var inner = el('div', 'unified_vendor_inner');
      inner.appendChild(el('div', 'unified_vendor_name', i.name));
      var catsEl = el('div', 'unified_vendor_cats');
      i.categories.forEach(function (c) { catsEl.appendChild(el('span', '', label(c))); });
      inner.appendChild(catsEl);
      a.appendChild(inner);
      vendors.appendChild(a);
    });
    var empty = el('div', 'unified_empty', 'No integrations available.');
    vendors.appendChild(empty);
    wrap.appendChild(vendors);
    root.textContent = '';
    root.appendChild(wrap);
    show();
  }
  function styles() {
    if (DATA.options.style === false || document.getElementById('unified-style')) return;
    var s = document.createElement('style');
    s.id = 'unified-style';
    s.textContent = DATA.css;
    (document.head || document.documentElement).appendChild(s);
  }
  function start() {
    var root = document.getElementById(DATA.options.did);
    if (!root) { console.error('unified.js: no element with id "' + DATA.options.did + '"'); return; }
    styles();
    render(root, DATA.options, DATA.integrations);
  }
  window.UnifiedDirectory = {
    renderDirectory: function (root, opts) {
      styles();
      render(root, Object.assign({}, DATA.options, opts || {}), DATA.integrations);
    }
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`
