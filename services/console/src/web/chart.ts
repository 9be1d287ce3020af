// Bar charts drawn on the server as inline SVG: no script, no image request (the pages' CSP allows
// neither), readable without colour (each bar's <title> says its day and counts, and a table below
// the chart holds the same numbers).
import { type Html, html, scrollRegion } from '@devplat/http';

export interface Series {
  name: string;
  colour: string;
  /** One count per day, in the order of the chart's days. */
  values: number[];
}

export interface BarChart {
  /** The chart's accessible name, e.g. "Consents per day, last 30 days". */
  title: string;
  /** The days (YYYY-MM-DD, UTC), oldest first. */
  days: string[];
  series: Series[];
  /** Stacked: the series' bars on top of each other; grouped: side by side within each day. */
  layout: 'stacked' | 'grouped';
}

const width = 720;
const height = 160;
const left = 36;
const bottom = 22;
const top = 8;

/** The chart as an <svg> (role img), its legend, and the numbers as a table. */
export function barChart({ title, days, series, layout }: BarChart): Html {
  const totals = days.map((_, day) => series.reduce((sum, each) => sum + (each.values[day] ?? 0), 0));
  const tallest = Math.max(1, ...(layout === 'stacked' ? totals : series.flatMap((each) => each.values)));
  const plotHeight = height - top - bottom;
  const band = (width - left) / Math.max(days.length, 1);
  const barWidth = layout === 'grouped' ? (band * 0.8) / Math.max(series.length, 1) : band * 0.8;
  const scale = (count: number) => (count / tallest) * plotHeight;
  const bars = days.map((day, index) => {
    let stackedHeight = 0;
    const label = `${day}: ${series.map((each) => `${each.values[index] ?? 0} ${each.name}`).join(', ')}`;
    const rects = series.map((each, position) => {
      const count = each.values[index] ?? 0;
      if (count === 0) return '';
      const barHeight = scale(count);
      const x = left + index * band + band * 0.1 + (layout === 'grouped' ? position * barWidth : 0);
      const y = height - bottom - barHeight - (layout === 'stacked' ? stackedHeight : 0);
      stackedHeight += barHeight;
      return html`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${barHeight.toFixed(1)}" fill="${each.colour}" data-series="${each.name}" data-count="${count}"></rect>`;
    });
    return html`<g data-day="${day}"><title>${label}</title><rect x="${(left + index * band).toFixed(1)}" y="${top}" width="${band.toFixed(1)}" height="${plotHeight}" fill="transparent"></rect>${rects}</g>`;
  });
  // The first, middle and last days, anchored so that none runs off the chart.
  const xLabels = (
    [
      [0, 'start', left],
      [Math.floor((days.length - 1) / 2), 'middle', left + (Math.floor((days.length - 1) / 2) + 0.5) * band],
      [days.length - 1, 'end', width],
    ] as const
  )
    .filter(([index], position, list) => index >= 0 && list.findIndex(([other]) => other === index) === position)
    .map(
      ([index, anchor, x]) =>
        html`<text x="${x.toFixed(1)}" y="${height - 6}" text-anchor="${anchor}" font-size="11">${days[index]?.slice(5)}</text>`,
    );
  const legend = series.map(
    (each) =>
      html`<span class="legend"><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${each.colour}"></rect></svg> ${each.name}: ${each.values.reduce((sum, value) => sum + value, 0)}</span> `,
  );
  const rows = days
    .map((day, index) => ({ day, counts: series.map((each) => each.values[index] ?? 0) }))
    .filter((row) => row.counts.some((count) => count > 0))
    .map((row) => html`<tr><td>${row.day}</td>${row.counts.map((count) => html`<td>${count}</td>`)}</tr>`);
  return html`<figure class="chart">
<svg role="img" aria-label="${title}" viewBox="0 0 ${width} ${height}" width="100%" font-family="sans-serif">
<line x1="${left}" y1="${height - bottom}" x2="${width}" y2="${height - bottom}" stroke="#888"></line>
<text x="${left - 4}" y="${top + 10}" text-anchor="end" font-size="11">${tallest}</text>
<text x="${left - 4}" y="${height - bottom}" text-anchor="end" font-size="11">0</text>
${bars}${xLabels}
</svg>
<figcaption>${title}. ${legend}</figcaption>
<details><summary>The numbers</summary>${
    rows.length
      ? scrollRegion(
          `${title}: the numbers`,
          html`<table><thead><tr><th>Day</th>${series.map((each) => html`<th>${each.name}</th>`)}</tr></thead><tbody>${rows}</tbody></table>`,
        )
      : html`<p>Nothing in these 30 days.</p>`
  }</details>
</figure>`;
}

/** The last `count` days (UTC) up to and including `now`'s, oldest first. */
export function lastDays(now: Date, count = 30): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: count }, (_, index) =>
    new Date(today - (count - 1 - index) * 86_400_000).toISOString().slice(0, 10),
  );
}
