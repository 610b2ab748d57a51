/**
 * The stylesheet of every page: served as `/assets/app.css` (the CSP allows
 * only same-origin styles) and inlined into `report --html` files. Cells and
 * charts take their colours from classes, never from `style` attributes.
 */
export const APP_CSS = `
:root{--ok:#2da44e;--fail:#cf222e;--run:#0969da;--stall:#8250df;--intr:#8c959f;--clear:#1b9aaa;--miss:#d4a72c;--skip:#e85aad;--retry:#f08c00;--due:#e6e9ec;--ink:#1f2328;--mute:#656d76;--line:#d0d7de}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);margin:0;background:#fff}
header{display:flex;gap:1.2em;align-items:center;padding:.6em 1.2em;border-bottom:1px solid var(--line);background:#f6f8fa}
header .brand{font-weight:700}
header a{color:var(--ink);text-decoration:none}
header a:hover{text-decoration:underline}
#live{margin-left:auto;color:var(--mute);font-size:12px}
#live.on::before{content:"● ";color:var(--ok)}
main{padding:1em 1.2em;max-width:1400px}
h1{font-size:20px;margin:.2em 0 .4em}
h2{font-size:16px;margin:1.4em 0 .4em;border-bottom:1px solid var(--line);padding-bottom:.2em}
.past{background:#fff8c5;border:1px solid #d4a72c;padding:.6em 1em;margin:0 1.2em;border-radius:6px;margin-top:.8em}
.facts{display:flex;flex-wrap:wrap;gap:.4em 2em;margin:.4em 0}
.facts b{font-weight:600}
table{border-collapse:collapse;margin:.4em 0;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
.err{color:var(--fail);white-space:pre-wrap;word-break:break-word}
.muted{color:var(--mute)}
.err-wrap{word-break:break-all;white-space:pre-wrap}
.cal{display:inline-block;margin:.4em 0}
.cal-row{display:flex;align-items:center;gap:2px;margin:2px 0}
.cal-row .lbl{width:7.5em;font:12px ui-monospace,monospace;color:var(--mute)}
.cal-head span{width:15px;font:10px ui-monospace,monospace;color:var(--mute);text-align:left}
.c{display:inline-block;width:15px;height:15px;border-radius:3px;position:relative}
.strip{display:inline-flex;gap:2px}
.strip .c{width:10px;height:16px;border-radius:2px}
.s-none{background:transparent}
.s-success{background:var(--ok)}.s-skipped{background:var(--skip)}.s-failed{background:var(--fail)}.s-up_for_retry{background:var(--retry)}.s-running{background:var(--run)}
.s-stalled{background:var(--stall)}.s-interrupted{background:var(--intr)}.s-cleared{background:var(--clear)}.s-missing{background:var(--miss)}.s-not-due{background:var(--due)}
.c.wm{outline:2px solid var(--ink);outline-offset:1px}
.c.blocked{background-image:repeating-linear-gradient(45deg,transparent 0 3px,rgba(0,0,0,.35) 3px 5px)}
.c.ct::after{content:"";position:absolute;left:0;right:0;bottom:-5px;height:2px;background:var(--ink)}
.legend{display:flex;flex-wrap:wrap;gap:.3em 1.2em;font-size:12px;color:var(--mute);margin:.3em 0}
.legend .c{vertical-align:middle;margin-right:.3em}
.badge{display:inline-block;padding:0 .5em;border-radius:1em;font-size:12px;color:#fff}
.b-success{background:var(--ok)}.b-skipped{background:var(--skip)}.b-up_for_retry{background:var(--retry)}.b-failed{background:var(--fail)}.b-running{background:var(--run)}.b-stalled{background:var(--stall)}.b-interrupted{background:var(--intr)}
.b-cleared{background:var(--clear)}.b-missing{background:var(--miss);color:var(--ink)}.b-abandoned{background:var(--mute)}.b-other{background:var(--mute)}
svg.chart{border:1px solid var(--line);border-radius:6px;background:#fff;max-width:100%;height:auto}
svg.chart text{font:11px ui-monospace,monospace;fill:var(--mute)}
svg.chart text.wm-label{fill:var(--run)}
.ok{color:var(--ok);font-weight:600}.bad{color:var(--fail);font-weight:600}
section.pipeline{margin-bottom:2.5em}
footer{padding:1em 1.2em;color:var(--mute);font-size:12px;border-top:1px solid var(--line);margin-top:2em}
h1,.wrap{overflow-wrap:anywhere}
a.c{text-decoration:none}
.c .x{position:absolute;right:-3px;top:-3px;width:9px;height:9px;border-radius:50%;border:1px solid #fff;box-shadow:0 0 0 1px var(--ink)}
.c.off{outline:1px dashed var(--ink);outline-offset:1px}
.overview td.name{max-width:22em;overflow-wrap:anywhere}
.overview td.last-failure{max-width:28em}
.h-failed{background:var(--fail)}.h-stalled{background:var(--stall)}.h-behind{background:var(--miss);color:var(--ink)}.h-running{background:var(--run)}.h-ok{background:var(--ok)}.h-not-due{background:var(--intr)}
.filters{display:flex;flex-wrap:wrap;gap:.4em 1em;align-items:center;margin:.2em 0 .8em}
.hstrip{display:flex;width:100%;max-width:1100px;height:22px;border:1px solid var(--line);border-radius:4px;overflow:hidden;background:var(--due)}
.hstrip a,.hstrip i{flex:1 1 0;min-width:0;display:block}
.hstrip a:hover{outline:2px solid var(--ink);outline-offset:-2px}
.small{font-size:12px;margin:.2em 0 .6em}
.range{background:#ddf4ff;border:1px solid #54aeff;border-radius:6px;padding:.3em .8em;width:fit-content;max-width:100%}
.tgrid-wrap{overflow-x:auto;max-width:100%}
table.tgrid td{padding:1px 2px;border:0}
table.tgrid th.d{font:10px ui-monospace,monospace;writing-mode:vertical-rl;transform:rotate(180deg);padding:2px;white-space:nowrap}
table.tgrid th.task{font-weight:400;white-space:nowrap;max-width:16em;overflow:hidden;text-overflow:ellipsis}
.t{display:block;width:14px;height:14px;border-radius:3px;background:var(--due)}
.t-success{background:var(--ok)}.t-failed{background:var(--fail)}.t-upstream_failed{background:#f0883e}.t-running,.t-queued,.t-scheduled{background:var(--run)}.t-up_for_retry{background:var(--stall)}.t-skipped,.t-removed{background:var(--intr)}
pre.log{background:#f6f8fa;border:1px solid var(--line);border-radius:6px;padding:.6em;max-height:30em;overflow:auto;white-space:pre-wrap;word-break:break-word;font-size:12px}
#zone{font:12px system-ui,sans-serif;border:1px solid var(--line);border-radius:4px;background:#fff;padding:.1em .5em;cursor:pointer}
@media (max-width:760px){
main{padding:.6em}
header{gap:.6em;flex-wrap:wrap;padding:.5em .6em}
.overview .wide{display:none}
.overview td.name{max-width:11em}
.overview th,.overview td{padding:.25em .35em}
table:not(.overview){display:block;overflow-x:auto;max-width:100%}
table:not(.overview) .err-wrap{min-width:22em;word-break:break-word}
.cal{display:block;overflow-x:auto;max-width:100%}
.cal-row .lbl{width:6em;flex:none;font-size:11px}
.cal .c,.cal-head span{width:9px;height:9px;flex:none}
.cal-head span{font-size:8px;height:auto}
svg.chart{width:100%}
}
`;

/**
 * The one script of served pages (`/assets/app.js`): it listens to the
 * server's event stream and follows the ledger without a reload. A pipeline
 * or run page (`data-pipeline` on its body) listens only to its own
 * pipeline's changes; other pages to every change. After a change it fetches
 * the same address at most once a second and replaces, in place, only the
 * parts of the page (`data-part`) whose markup changed, so the rest of the
 * page, its scroll position and anything a reader opened stay as they are.
 * Pages that show the past do not listen: the past does not change.
 */
export const APP_JS = `(() => {
  const body = document.body;
  const live = document.getElementById('live');
  if (body.dataset.live !== '1' || !('EventSource' in window)) return;
  const mine = body.dataset.pipeline || null;
  const MIN_GAP_MS = 1000;
  let busy = false, again = false, timer = null, last = 0;
  // Parts are compared as the server last sent them: the times toggle edits what is shown, which must not count as a change.
  const served = new Map();
  for (const el of document.querySelectorAll('#main [data-part]')) served.set(el.dataset.part, el.outerHTML);
  function swap(doc) {
    const next = doc.getElementById('main');
    const current = document.getElementById('main');
    if (!next || !current) return;
    const parts = Array.from(next.querySelectorAll('[data-part]'));
    const find = (name) => Array.from(current.querySelectorAll('[data-part]')).find((el) => el.dataset.part === name);
    const same = parts.length > 0 && parts.length === current.querySelectorAll('[data-part]').length && parts.every((p) => find(p.dataset.part));
    if (!same) {
      if (current.innerHTML !== next.innerHTML) current.replaceWith(document.importNode(next, true));
      served.clear();
      for (const part of parts) served.set(part.dataset.part, part.outerHTML);
      return;
    }
    for (const part of parts) {
      const old = find(part.dataset.part);
      if (old && served.get(part.dataset.part) !== part.outerHTML) old.replaceWith(document.importNode(part, true));
      served.set(part.dataset.part, part.outerHTML);
    }
  }
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    last = Date.now();
    try {
      const res = await fetch(location.href, { cache: 'no-store', credentials: 'same-origin' });
      if (res.ok) {
        const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
        swap(doc);
        const foot = doc.querySelector('footer');
        const oldFoot = document.querySelector('footer');
        if (foot && oldFoot && oldFoot.outerHTML !== foot.outerHTML) oldFoot.replaceWith(document.importNode(foot, true));
        body.dataset.position = doc.body.dataset.position || body.dataset.position;
      }
    } catch (e) {
      /* the next change tries again */
    } finally {
      busy = false;
      if (again) { again = false; schedule(); }
    }
  }
  function schedule() {
    if (timer !== null) return;
    timer = setTimeout(() => { timer = null; refresh(); }, Math.max(0, last + MIN_GAP_MS - Date.now()));
  }
  function connect() {
    const query = 'after=' + encodeURIComponent(body.dataset.position || '0') + (mine ? '&pipeline=' + encodeURIComponent(mine) : '');
    const source = new EventSource('/api/stream?' + query);
    source.addEventListener('append', (e) => {
      let notice = null;
      try { notice = JSON.parse(e.data); } catch (err) { /* an unreadable notice still means a change */ }
      if (mine && notice && notice.pipelines && !Object.prototype.hasOwnProperty.call(notice.pipelines, mine)) return;
      schedule();
    });
    source.onopen = () => { if (live) { live.textContent = 'live'; live.className = 'on'; } };
    source.onerror = () => { if (live) { live.textContent = 'reconnecting…'; live.className = ''; } };
  }
  connect();
})();

// Times show in each pipeline's zone; this toggle shows them in the browser's, and remembers the choice.
(() => {
  const button = document.getElementById('zone');
  if (!button) return;
  const local = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local';
  const pad = (n) => String(n).padStart(2, '0');
  const inBrowser = (iso) => {
    const d = new Date(iso);
    if (isNaN(d.getTime())) return null;
    const off = -d.getTimezoneOffset();
    const sign = off < 0 ? '-' : '+';
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + 'T' + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + sign + pad(Math.floor(Math.abs(off) / 60)) + ':' + pad(Math.abs(off) % 60);
  };
  let mine = false;
  try { mine = localStorage.getItem('runledger.zone') === 'browser'; } catch (e) { /* storage off: default */ }
  const observer = new MutationObserver(() => apply());
  function apply() {
    // Our own edits must not wake the observer again.
    observer.disconnect();
    for (const t of document.querySelectorAll('time[datetime]')) {
      if (!t.dataset.orig) t.dataset.orig = t.textContent || '';
      const text = mine ? inBrowser(t.getAttribute('datetime')) : null;
      t.textContent = text || t.dataset.orig;
      t.title = mine ? 'in ' + local + ' (your browser); ' + t.dataset.orig + ' in ' + (t.dataset.zone || 'the pipeline zone') : '';
    }
    button.textContent = mine ? 'Times: ' + local + ' (yours)' : 'Times: pipeline zone';
    button.setAttribute('aria-pressed', mine ? 'true' : 'false');
    observer.observe(document.body, { childList: true, subtree: true });
  }
  button.hidden = false;
  button.addEventListener('click', () => {
    mine = !mine;
    try { localStorage.setItem('runledger.zone', mine ? 'browser' : 'pipeline'); } catch (e) { /* not kept */ }
    apply();
  });
  // Live updates replace the page's main element: apply() observes the body and applies again to what arrives.
  apply();
})();
`;
