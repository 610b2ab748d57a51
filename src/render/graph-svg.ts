import type { GraphView, NodeStatus } from '../../projections/views/graph-view.js';
import { html, join, type Html } from './escape-html.js';

const NODE_W = 230;
const NODE_H = 54;
const GAP_X = 90;
const GAP_Y = 26;

/** Fill per status, as SVG presentation attributes (the CSP allows no inline style). */
const FILL: Record<NodeStatus, string> = {
  failed: '#f4b4b4',
  blocked: '#f6d9a8',
  pending: '#e4e4e4',
  running: '#b9d7f5',
  success: '#b9e4c1',
  none: '#ffffff',
};

/**
 * The dependency graph as inline SVG: a box per pipeline (coloured by its worst status, linking to its
 * page), an arrow from each upstream to the pipeline that waits for it, labelled `previous` for that
 * mapping. Every text goes through the one escaper.
 *
 * @example
 * graphSvg(view, (name) => `/pipelines/${name}`).html
 */
export function graphSvg(view: GraphView, link: (pipeline: string) => string): Html {
  if (view.nodes.length === 0) return html`<p class="muted">No pipelines yet.</p>`;
  const at = new Map(view.nodes.map((n) => [n.pipeline, { x: 10 + n.layer * (NODE_W + GAP_X), y: 10 + n.row * (NODE_H + GAP_Y) }]));
  const width = Math.max(...[...at.values()].map((p) => p.x)) + NODE_W + 20;
  const height = Math.max(...[...at.values()].map((p) => p.y)) + NODE_H + 20;
  const edges = view.edges.map((e) => {
    const from = at.get(e.from);
    const to = at.get(e.to);
    if (!from || !to) return html``;
    const x1 = from.x + NODE_W;
    const y1 = from.y + NODE_H / 2;
    const x2 = to.x - 6;
    const y2 = to.y + NODE_H / 2;
    const label = e.mapping === 'previous' ? html`<text x="${(x1 + x2) / 2}" y="${(y1 + y2) / 2 - 4}" font-size="11" text-anchor="middle">previous</text>` : html``;
    return html`<g class="edge"><title>${e.to} waits for ${e.from} (${e.mapping})</title><line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="#555" stroke-width="1.5" marker-end="url(#arrow)"${e.mapping === 'previous' ? html` stroke-dasharray="5 3"` : html``}/>${label}</g>`;
  });
  const nodes = view.nodes.map((n) => {
    const p = at.get(n.pipeline) as { x: number; y: number };
    const detail = n.blocked > 0 ? `${n.blocked} blocked` : n.pending > 0 ? `${n.pending} pending` : n.status;
    return html`<a href="${link(n.pipeline)}" class="node s-node-${n.status}"><title>${n.pipeline}: ${n.status}; ${n.pending} pending, ${n.blocked} blocked; complete through ${n.completeThrough ?? 'none'}</title><rect x="${p.x}" y="${p.y}" width="${NODE_W}" height="${NODE_H}" rx="6" fill="${FILL[n.status]}" stroke="#333"/><text x="${p.x + 10}" y="${p.y + 22}" font-size="14" font-weight="600">${n.pipeline}</text><text x="${p.x + 10}" y="${p.y + 42}" font-size="11">${n.schedule} · ${n.timezone} · ${detail}</text></a>`;
  });
  const legend = (Object.keys(FILL) as NodeStatus[]).map((s) => html`<span><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill="${FILL[s]}" stroke="#333"/></svg> ${s}</span>`);
  return html`<svg class="graph" role="img" aria-label="pipeline dependencies" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>${join(edges)}${join(nodes)}</svg><div class="legend">${join(legend, ' ')} <span>dashed arrow: previous slot</span></div>`;
}
