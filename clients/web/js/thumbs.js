// A small picture of a game's board for its lobby card, drawn from what welcome.games says
// of it (the board's rows and columns, from its actions' `cell` fields), so that a game the
// server adds gets a picture too. The games this client knows get their own look; the picture
// is decorative (the card's title and line say what the game is) and hidden from readers.

const SVG = "http://www.w3.org/2000/svg";

function el(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** The board's size: its `height`/`width` options' defaults when it has them (a board whose
 * size is chosen), else the game's actions' (the first `cell` field), else a square 8x8. */
export function boardSize(spec) {
  const opt = (name) => ((spec && spec.options) || []).find((o) => o.name === name && o.kind === "int");
  const [hi, wi] = [opt("height"), opt("width")];
  if (hi && wi) return [hi.default, wi.default];
  for (const a of (spec && spec.actions) || []) {
    for (const f of a.fields || []) {
      if (f.kind === "cell" && f.rows > 0 && f.cols > 0) return [f.rows, f.cols];
    }
  }
  return [8, 8];
}

/** A stable small number from a string and a square: the same picture on every visit. */
function mix(name, r, c) {
  let x = 2166136261;
  for (const ch of `${name}:${r}:${c}`) x = Math.imul(x ^ ch.charCodeAt(0), 16777619);
  return (x >>> 0) % 1000;
}

const PIECES = ["#c0392b", "#2e86c1", "#27ae60", "#f1c40f", "#8e44ad", "#e67e22"];

const LOOKS = {
  // Mathable: a warm board, premium squares in colour, a few tiles near the middle
  mathable: { bg: "#f3e2b3", line: "#c9ad6e", fill: (r, c, rows) => {
    const mid = rows / 2 - 1;
    if ((r === mid || r === mid + 1) && (c === mid || c === mid + 1)) return ["tile"];
    const d = Math.abs(r - c) % 5;
    if ((r + c) % 7 === 0) return ["sq", "#d9534f"];
    if (d === 0 && r % 3 === 0) return ["sq", "#5b8def"];
    return null;
  }, density: 0 },
  matchit: { bg: "#1e5a3c", line: "#2a6e4b", fill: () => ["tile"], density: 820 },
  linksame: { bg: "#21486b", line: "#2b5a84", fill: () => ["tile"], density: 860 },
  shisen: { bg: "#1e5a3c", line: "#2a6e4b", fill: () => ["tile"], density: 820 },
  lines: { bg: "#d8d4ca", line: "#b9b3a5", fill: () => ["ball"], density: 300 },
  ishido: { bg: "#3b2f25", line: "#574538", fill: () => ["stone"], density: 420 },
};

/** The picture of `spec`'s board: an <svg>, decorative. A handful of paths, one per colour,
 * not an element per square: the lobby draws five of them before its first paint. */
export function thumb(spec) {
  const [rows, cols] = boardSize(spec);
  const name = (spec && spec.name) || "";
  const look = LOOKS[name] || { bg: "#d9d5cc", line: "#bdb7aa", fill: () => ["ball"], density: 250 };
  const svg = el("svg", { viewBox: `0 0 ${cols * 10} ${rows * 10}`, class: "thumb", "aria-hidden": "true", focusable: "false" });
  svg.append(el("rect", { x: 0, y: 0, width: cols * 10, height: rows * 10, fill: look.bg }));
  const paths = new Map(); // colour -> path data
  const add = (colour, d) => paths.set(colour, (paths.get(colour) || "") + d);
  const box = (x, y, w, hgt) => `M${x} ${y}h${w}v${hgt}h${-w}z`;
  let lines = "";
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const x = c * 10;
      const y = r * 10;
      lines += box(x + 0.5, y + 0.5, 9, 9);
      const roll = mix(name, r, c);
      const what = look.density ? (roll < look.density ? look.fill(r, c, rows) : null) : look.fill(r, c, rows);
      if (!what) continue;
      const colour = PIECES[roll % PIECES.length];
      if (what[0] === "sq") add(what[1], box(x + 1, y + 1, 8, 8));
      else if (what[0] === "tile") {
        add("#fbf6ea", box(x + 1, y + 0.8, 8, 8.4));
        add(colour, box(x + 3.2, y + 3, 3.6, 4));
      } else if (what[0] === "stone") add(colour, box(x + 1.2, y + 1.2, 7.6, 7.6));
      else add(colour, `M${x + 1.4} ${y + 5}a3.6 3.6 0 1 0 7.2 0a3.6 3.6 0 1 0 -7.2 0z`);
    }
  }
  svg.append(el("path", { d: lines, fill: "none", stroke: look.line, "stroke-width": 0.6 }));
  // the tiles' faces first, their marks over them
  for (const [colour, d] of [...paths].sort(([a], [b]) => (a === "#fbf6ea" ? -1 : b === "#fbf6ea" ? 1 : 0))) {
    svg.append(el("path", { d, fill: colour }));
  }
  return svg;
}
