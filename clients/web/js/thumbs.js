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

/** The picture of `spec`'s board: an <svg>, decorative. */
export function thumb(spec) {
  const [rows, cols] = boardSize(spec);
  const name = (spec && spec.name) || "";
  const look = LOOKS[name] || { bg: "#d9d5cc", line: "#bdb7aa", fill: () => ["ball"], density: 250 };
  const svg = el("svg", { viewBox: `0 0 ${cols * 10} ${rows * 10}`, class: "thumb", "aria-hidden": "true", focusable: "false" });
  svg.append(el("rect", { x: 0, y: 0, width: cols * 10, height: rows * 10, fill: look.bg }));
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const x = c * 10;
      const y = r * 10;
      const roll = mix(name, r, c);
      const what = look.density ? (roll < look.density ? look.fill(r, c, rows) : null) : look.fill(r, c, rows);
      svg.append(el("rect", { x: x + 0.5, y: y + 0.5, width: 9, height: 9, fill: "none", stroke: look.line, "stroke-width": 0.6 }));
      if (!what) continue;
      const colour = PIECES[roll % PIECES.length];
      if (what[0] === "sq") svg.append(el("rect", { x: x + 1, y: y + 1, width: 8, height: 8, fill: what[1] }));
      else if (what[0] === "tile") {
        svg.append(el("rect", { x: x + 1, y: y + 0.8, width: 8, height: 8.4, rx: 1.2, fill: "#fbf6ea" }));
        svg.append(el("rect", { x: x + 3.2, y: y + 3, width: 3.6, height: 4, rx: 0.8, fill: colour }));
      } else if (what[0] === "stone") {
        svg.append(el("rect", { x: x + 1, y: y + 1, width: 8, height: 8, rx: 1.5, fill: colour }));
      } else svg.append(el("circle", { cx: x + 5, cy: y + 5, r: 3.6, fill: colour }));
    }
  }
  return svg;
}
