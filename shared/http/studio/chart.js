// A small horizontal bar chart in SVG: one bar per label, drawn by hand.
const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs, text) {
  const el = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  if (text !== undefined) el.textContent = text;
  return el;
}

export function barChart(entries, { title = "", width = 320 } = {}) {
  const row = 22;
  const label = 90;
  const max = Math.max(1, ...entries.map(([, v]) => v));
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${entries.length * row + 4}`,
    role: "img",
    "aria-label": `${title}: ${entries.map(([k, v]) => `${k} ${v}`).join(", ")}`,
    class: "chart",
  });
  entries.forEach(([name, value], i) => {
    const y = i * row + 2;
    const room = width - label - 40;
    chart.append(
      svg("text", { x: 0, y: y + 14, class: "chart-label" }, name),
      svg("rect", { x: label, y: y + 3, height: 14, rx: 3, width: Math.max(2, (value / max) * room), class: `bar bar-${i}` }),
      svg("text", { x: label + (value / max) * room + 6, y: y + 14, class: "chart-value" }, String(value)),
    );
  });
  return chart;
}
