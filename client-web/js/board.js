// The Go board as an SVG component: props in, events out. It draws a position
// (stones, last-move mark, dead marks, shaded territory, move numbers, the ko point, a preview stone
// under the pointer or keyboard cursor, a ghost stone waiting to be confirmed) and reports which
// intersection was chosen; it holds no rules and no socket.
//
//   const board = createBoard(element, { onPoint: (point) => … , describe: (point, stone) => label, arrowsToPage });
//   board.update({ size, board, lastMove, dead, territory, preview, coordinates, numbers, ko, ghost });
//   (numbers: Map of pointKey → move number; ko: the point retaking is forbidden on; ghost: {point, color})

import { layout, pointToXY, xyToPoint, starPoints, columnLabel, rowLabel, moveCursor, pointKey, samePoint } from './geometry.js';
import { ownerColor, stoneColor } from './stones.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const VIEW = 1000;

function el(name, attrs = {}, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

/** Gradients for wood and stones, defined once per board (ids are per-instance so boards can coexist). */
let instances = 0;
function defs(svg, uid) {
  const d = el('defs', {}, svg);
  const wood = el('linearGradient', { id: `wood-${uid}`, x1: 0, y1: 0, x2: 1, y2: 1 }, d);
  el('stop', { offset: '0%', 'stop-color': '#e8c07a' }, wood);
  el('stop', { offset: '55%', 'stop-color': '#dcb066' }, wood);
  el('stop', { offset: '100%', 'stop-color': '#cf9f52' }, wood);
  // A faint grain: stretched turbulence blended over the wood colour.
  const grain = el('filter', { id: `grain-${uid}`, x: 0, y: 0, width: '100%', height: '100%' }, d);
  el('feTurbulence', { type: 'fractalNoise', baseFrequency: '0.004 0.09', numOctaves: 2, seed: 7, result: 'noise' }, grain);
  el('feColorMatrix', { in: 'noise', type: 'matrix', values: '0 0 0 0 0.45  0 0 0 0 0.28  0 0 0 0 0.08  0 0 0 0.35 0' }, grain);
  const black = el('radialGradient', { id: `black-${uid}`, cx: '35%', cy: '30%', r: '70%' }, d);
  el('stop', { offset: '0%', 'stop-color': '#666' }, black);
  el('stop', { offset: '45%', 'stop-color': '#1a1a1a' }, black);
  el('stop', { offset: '100%', 'stop-color': '#000' }, black);
  const white = el('radialGradient', { id: `white-${uid}`, cx: '35%', cy: '30%', r: '75%' }, d);
  el('stop', { offset: '0%', 'stop-color': '#ffffff' }, white);
  el('stop', { offset: '70%', 'stop-color': '#e9e9e4' }, white);
  el('stop', { offset: '100%', 'stop-color': '#b9b9b0' }, white);
  const shadow = el('filter', { id: `shadow-${uid}`, x: '-20%', y: '-20%', width: '150%', height: '150%' }, d);
  el('feDropShadow', { dx: 4, dy: 5, stdDeviation: 3, 'flood-opacity': 0.35 }, shadow);
}

export function createBoard(container, { onPoint = () => {}, describe = null, arrowsToPage = false } = {}) {
  const uid = ++instances;
  const svg = el('svg', { viewBox: `0 0 ${VIEW} ${VIEW}`, class: 'goban', role: 'application', tabindex: 0 });
  container.appendChild(svg);
  defs(svg, uid);
  const base = el('g', {}, svg);
  const shade = el('g', { class: 'territory' }, svg);
  const stones = el('g', { class: 'stones' }, svg);
  const marks = el('g', { class: 'marks' }, svg);
  const hover = el('g', { class: 'hover', 'pointer-events': 'none' }, svg);

  let props = { size: 19, board: [], preview: null };
  let geom = null;
  let drawnSize = 0;
  let drawnCoords = null;
  let hoverPoint = null;
  let cursor = null;

  function drawBase() {
    base.replaceChildren();
    const { size } = props;
    geom = layout(size, VIEW);
    el('rect', { x: 0, y: 0, width: VIEW, height: VIEW, rx: 12, fill: `url(#wood-${uid})` }, base);
    el('rect', { x: 0, y: 0, width: VIEW, height: VIEW, rx: 12, filter: `url(#grain-${uid})`, opacity: 0.9 }, base);
    const first = geom.origin;
    const last = geom.origin + (size - 1) * geom.cell;
    const lineWidth = Math.max(1.2, geom.cell / 28);
    const lines = el('g', { stroke: '#3b2a14', 'stroke-width': lineWidth, 'stroke-linecap': 'square' }, base);
    for (let i = 0; i < size; i++) {
      const at = first + i * geom.cell;
      el('line', { x1: first, y1: at, x2: last, y2: at }, lines);
      el('line', { x1: at, y1: first, x2: at, y2: last }, lines);
    }
    el('rect', { x: first, y: first, width: last - first, height: last - first, fill: 'none', stroke: '#3b2a14', 'stroke-width': lineWidth * 1.8 }, base);
    for (const p of starPoints(size)) {
      const { x, y } = pointToXY(geom, p);
      el('circle', { cx: x, cy: y, r: Math.max(4, geom.cell / 9), fill: '#3b2a14', class: 'star' }, base);
    }
    if (props.coordinates !== false) {
      const font = Math.min(28, geom.cell * 0.38);
      const labels = el('g', { fill: '#4a3418', 'font-size': font, 'font-family': 'system-ui, sans-serif', 'text-anchor': 'middle', 'dominant-baseline': 'central', class: 'coords' }, base);
      const near = geom.origin - geom.cell * 0.72;
      const far = last + geom.cell * 0.72;
      for (let i = 0; i < size; i++) {
        const at = first + i * geom.cell;
        for (const y of [near, far]) el('text', { x: at, y }, labels).textContent = columnLabel(i);
        for (const x of [near, far]) el('text', { x, y: at }, labels).textContent = rowLabel(i, size);
      }
    }
    drawnSize = size;
    drawnCoords = props.coordinates;
  }

  function stoneNode(parent, point, color, extra = {}) {
    const { x, y } = pointToXY(geom, point);
    const r = geom.cell * 0.48;
    return el('circle', { cx: x, cy: y, r, fill: `url(#${color}-${uid})`, filter: `url(#shadow-${uid})`, ...extra }, parent);
  }

  function drawPosition() {
    stones.replaceChildren();
    marks.replaceChildren();
    shade.replaceChildren();
    const { size, board } = props;
    const dead = new Set((props.dead ?? []).map(pointKey));
    for (let row = 0; row < size; row++) {
      for (let col = 0; col < size; col++) {
        const c = board[row]?.[col];
        const point = { col, row };
        const owner = props.territory?.[row]?.[col];
        const ownedBy = ownerColor(owner);
        if (ownedBy) {
          const { x, y } = pointToXY(geom, point);
          const s = geom.cell * 0.36;
          const black = ownedBy === 'black';
          el('rect', { x: x - s / 2, y: y - s / 2, width: s, height: s, class: `terr terr-${ownedBy}`, fill: black ? '#111' : '#fafafa', 'fill-opacity': 0.85, stroke: black ? 'none' : '#555', 'stroke-width': 1 }, shade);
        }
        const color = stoneColor(c);
        if (color) {
          const isDead = dead.has(pointKey(point));
          stoneNode(stones, point, color, { class: `stone stone-${color}${isDead ? ' dead' : ''}`, 'data-point': pointKey(point), opacity: isDead ? 0.45 : 1 });
          if (isDead) {
            // A cross on a dead stone, so the marking reads without relying on the faded colour alone.
            const { x, y } = pointToXY(geom, point);
            const r = geom.cell * 0.2;
            const cross = el('g', { stroke: '#c62828', 'stroke-width': Math.max(2, geom.cell / 14), 'stroke-linecap': 'round', class: 'dead-mark' }, marks);
            el('line', { x1: x - r, y1: y - r, x2: x + r, y2: y + r }, cross);
            el('line', { x1: x - r, y1: y + r, x2: x + r, y2: y - r }, cross);
          }
        }
      }
    }
    const numbered = drawNumbers();
    if (props.lastMove && !numbered.has(pointKey(props.lastMove))) {
      const { x, y } = pointToXY(geom, props.lastMove);
      const c = board[props.lastMove.row]?.[props.lastMove.col];
      el('circle', { cx: x, cy: y, r: geom.cell * 0.2, fill: 'none', stroke: stoneColor(c) === 'black' ? '#fff' : '#000', 'stroke-width': Math.max(2, geom.cell / 18), class: 'last-move' }, marks);
    }
    if (props.ko && board[props.ko.row]?.[props.ko.col] === '.') {
      // The ko point: a square where retaking at once is forbidden.
      const { x, y } = pointToXY(geom, props.ko);
      const s = geom.cell * 0.26;
      el('rect', { x: x - s, y: y - s, width: 2 * s, height: 2 * s, fill: 'none', stroke: '#1f2328', 'stroke-width': Math.max(2, geom.cell / 16), class: 'ko-mark' }, marks);
    }
    if (props.ghost && board[props.ghost.point.row]?.[props.ghost.point.col] === '.') {
      stoneNode(marks, props.ghost.point, props.ghost.color, { opacity: 0.6, class: 'ghost' });
    }
    svg.setAttribute('aria-label', props.label ?? '');
  }

  /** Move numbers on the stones still on the board (the last move's in red); returns the numbered keys. */
  function drawNumbers() {
    const numbered = new Set();
    if (!props.numbers) return numbered;
    const font = geom.cell * 0.42;
    const last = props.lastMove ? pointKey(props.lastMove) : null;
    for (const [key, n] of props.numbers) {
      const [col, row] = key.split(',').map(Number);
      const color = stoneColor(props.board[row]?.[col]);
      if (!color) continue;
      const { x, y } = pointToXY(geom, { col, row });
      const fill = key === last ? '#d32f2f' : color === 'black' ? '#fff' : '#111';
      el('text', { x, y, fill, 'font-size': n >= 100 ? font * 0.8 : font, 'font-family': 'system-ui, sans-serif', 'font-weight': 600,
        'text-anchor': 'middle', 'dominant-baseline': 'central', 'pointer-events': 'none', class: 'move-number' }, marks).textContent = String(n);
      numbered.add(key);
    }
    return numbered;
  }

  function drawHover() {
    hover.replaceChildren();
    const target = hoverPoint ?? cursor;
    if (cursor) {
      const { x, y } = pointToXY(geom, cursor);
      const s = geom.cell * 0.5;
      el('rect', { x: x - s, y: y - s, width: 2 * s, height: 2 * s, fill: 'none', stroke: '#1565c0', 'stroke-width': 3, rx: 4, class: 'cursor' }, hover);
    }
    if (!target || !props.preview) return;
    if (props.board[target.row]?.[target.col] !== '.') return;
    stoneNode(hover, target, props.preview, { opacity: 0.5, class: 'preview' });
  }

  function pointFromEvent(event) {
    const rect = svg.getBoundingClientRect();
    const x = ((event.clientX - rect.left) / rect.width) * VIEW;
    const y = ((event.clientY - rect.top) / rect.height) * VIEW;
    return xyToPoint(geom, x, y);
  }

  svg.addEventListener('pointermove', (event) => {
    const p = pointFromEvent(event);
    if (!samePoint(p, hoverPoint)) {
      hoverPoint = p;
      drawHover();
    }
  });
  svg.addEventListener('pointerleave', () => {
    hoverPoint = null;
    drawHover();
  });
  svg.addEventListener('click', (event) => {
    const p = pointFromEvent(event);
    if (p) onPoint(p);
  });
  svg.addEventListener('keydown', (event) => {
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    // On a review screen (`arrowsToPage`) a board focused by a click leaves the arrows to the page,
    // which steps through the moves; the keyboard cursor starts there only on a board reached with Tab.
    if (moves[event.key] && !cursor && arrowsToPage && focusedByPointer) return;
    if (moves[event.key]) {
      const start = cursor ?? { col: Math.floor(props.size / 2), row: Math.floor(props.size / 2) };
      cursor = cursor ? moveCursor(start, ...moves[event.key], props.size) : start;
      drawHover();
      announce();
      event.preventDefault();
    } else if ((event.key === 'Enter' || event.key === ' ') && cursor) {
      onPoint(cursor);
      event.preventDefault();
    } else if (event.key === 'Escape') {
      cursor = null;
      drawHover();
    }
  });
  // Whether the board got its focus from a click or a tap (pointerdown comes before focus), not a Tab.
  let focusedByPointer = false;
  svg.addEventListener('pointerdown', () => { focusedByPointer = true; });
  svg.addEventListener('blur', () => {
    focusedByPointer = false;
    cursor = null;
    drawHover();
  });

  // Screen readers hear the point under the keyboard cursor.
  const live = document.createElement('div');
  live.className = 'sr-only';
  live.setAttribute('aria-live', 'polite');
  container.appendChild(live);
  function announce() {
    if (!describe || !cursor) return;
    const c = props.board[cursor.row]?.[cursor.col];
    live.textContent = describe(cursor, stoneColor(c));
  }

  return {
    element: svg,
    update(next) {
      props = { ...props, ...next };
      if (props.size !== drawnSize || props.coordinates !== drawnCoords) drawBase();
      drawPosition();
      drawHover();
    },
  };
}
