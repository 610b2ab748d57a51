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
  function swap(doc) {
    const next = doc.getElementById('main');
    const current = document.getElementById('main');
    if (!next || !current) return;
    const parts = Array.from(next.querySelectorAll('[data-part]'));
    const find = (name) => Array.from(current.querySelectorAll('[data-part]')).find((el) => el.dataset.part === name);
    const same = parts.length > 0 && parts.length === current.querySelectorAll('[data-part]').length && parts.every((p) => find(p.dataset.part));
    if (!same) {
      if (current.innerHTML !== next.innerHTML) current.replaceWith(document.importNode(next, true));
      return;
    }
    for (const part of parts) {
      const old = find(part.dataset.part);
      if (old && old.outerHTML !== part.outerHTML) old.replaceWith(document.importNode(part, true));
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
`;
