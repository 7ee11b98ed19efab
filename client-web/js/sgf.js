// Reading SGF records (棋谱) for replay: the board size, the setup stones (AB/AW) and the Black/White moves
// of the main line (the first variation at every branch), plus the root's game info. Pure: text in,
// plain data out; no rules (see replay.js) and no DOM.
//
//   parseMainLine('(;SZ[9]PB[alice];B[ee];W[])') →
//     { size: 9, info: { SZ: '9', PB: 'alice' }, setup: { black: [], white: [] },
//       moves: [{ color: 'black', point: { col: 4, row: 4 } }, { color: 'white', point: null }] }

/**
 * Split SGF text into the nodes of its main line, each a map of property → list of values. SGF writes a
 * tree's first variation before its siblings, so the main line is every node met before the first ')'.
 */
export function mainLineNodes(text) {
  const start = text.indexOf('(');
  if (start < 0) throw new Error('not an SGF record: no "("');
  const nodes = [];
  let property = null;
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === ')') break;
    if (c === '[') {
      // A value may hold ')' or ';'; it ends at the first unescaped ']'.
      const end = valueEnd(text, i);
      if (property && nodes.length) {
        const value = text.slice(i + 1, end).replace(/\\\r?\n/g, '').replace(/\\(.)/gs, '$1');
        (nodes[nodes.length - 1][property] ??= []).push(value);
      }
      i = end;
    } else if (c === ';') {
      nodes.push({});
      property = null;
    } else if (/[A-Za-z]/.test(c)) {
      let j = i;
      while (j < text.length && /[A-Za-z]/.test(text[j])) j++;
      property = text.slice(i, j).replace(/[a-z]/g, '');
      i = j - 1;
    }
  }
  return nodes;
}

function valueEnd(text, open) {
  for (let j = open + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === ']') return j;
  }
  throw new Error('not an SGF record: unclosed "["');
}

/** An SGF point ("dd") as {col, row}; "" or "tt" on a board up to 19 is a pass (null). */
export function sgfPoint(value, size) {
  if (!value || (value === 'tt' && size <= 19)) return null;
  const col = value.charCodeAt(0) - 97;
  const row = value.charCodeAt(1) - 97;
  if (!(col >= 0 && col < size && row >= 0 && row < size)) throw new Error(`point "${value}" is off the board`);
  return { col, row };
}

/** Compressed point lists ("aa:cc") expand to every point of the rectangle. */
function pointList(values, size) {
  const points = [];
  for (const v of values ?? []) {
    const [a, b] = v.split(':');
    const from = sgfPoint(a, size);
    const to = b ? sgfPoint(b, size) : from;
    if (!from || !to) continue;
    for (let row = Math.min(from.row, to.row); row <= Math.max(from.row, to.row); row++) {
      for (let col = Math.min(from.col, to.col); col <= Math.max(from.col, to.col); col++) points.push({ col, row });
    }
  }
  return points;
}

/** The record's size, root info, setup stones and main-line moves. */
export function parseMainLine(text) {
  const nodes = mainLineNodes(text);
  if (nodes.length === 0) throw new Error('not an SGF record: no nodes');
  const root = nodes[0];
  const size = Number.parseInt(root.SZ?.[0] ?? '19', 10) || 19;
  const info = {};
  for (const [key, values] of Object.entries(root)) info[key] = values[0];
  const setup = { black: [], white: [] };
  const moves = [];
  for (const node of nodes) {
    setup.black.push(...pointList(node.AB, size));
    setup.white.push(...pointList(node.AW, size));
    if (node.B) moves.push({ color: 'black', point: sgfPoint(node.B[0], size) });
    else if (node.W) moves.push({ color: 'white', point: sgfPoint(node.W[0], size) });
  }
  return { size, info, setup, moves };
}
