// The app page's charts: bars to scale, a title per day that says its numbers, the same numbers in a
// table, text escaped, and the 30 days they cover.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { barChart, lastDays } from '../src/web/chart.ts';

const heights = (svg: string, series: string) =>
  [...svg.matchAll(new RegExp(`height="([\\d.]+)" fill="[^"]+" data-series="${series}" data-count="(\\d+)"`, 'g'))].map(
    (match) => [Number(match[1]), Number(match[2])],
  );

test('lastDays: the 30 UTC days up to today, oldest first, across a month end', () => {
  const days = lastDays(new Date('2026-03-01T23:30:00+02:00'));
  assert.equal(days.length, 30);
  assert.equal(days.at(-1), '2026-03-01', "the instant's UTC day");
  assert.deepEqual(days.slice(-3), ['2026-02-27', '2026-02-28', '2026-03-01']);
});

test('stacked: bars to the scale of the tallest day; a day with none draws no bar', () => {
  const svg = barChart({
    title: 'Deliveries',
    days: ['2026-01-01', '2026-01-02', '2026-01-03'],
    layout: 'stacked',
    series: [
      { name: 'succeeded', colour: '#0a0', values: [1, 0, 3] },
      { name: 'failed', colour: '#a00', values: [1, 0, 1] },
    ],
  }).toString();
  const plot = 160 - 8 - 22;
  assert.deepEqual(heights(svg, 'succeeded'), [
    [Number(((1 / 4) * plot).toFixed(1)), 1],
    [Number(((3 / 4) * plot).toFixed(1)), 3],
  ]);
  assert.deepEqual(heights(svg, 'failed'), [
    [Number(((1 / 4) * plot).toFixed(1)), 1],
    [Number(((1 / 4) * plot).toFixed(1)), 1],
  ]);
  assert.match(svg, /<g data-day="2026-01-03"><title>2026-01-03: 3 succeeded, 1 failed<\/title>/);
  assert.match(svg, /<text [^>]*>4<\/text>/, 'the axis says the tallest total');
  assert.match(svg, /<tr><td>2026-01-03<\/td><td>3<\/td><td>1<\/td><\/tr>/, 'the numbers, as a table');
  assert.doesNotMatch(svg, /<tr><td>2026-01-02</, 'an empty day has no row');
  assert.match(svg, /role="img" aria-label="Deliveries"/);
});

test('grouped: side by side, each to the scale of the tallest bar; nothing at all says so', () => {
  const grouped = barChart({
    title: 'Consents',
    days: ['2026-01-01'],
    layout: 'grouped',
    series: [
      { name: 'granted', colour: '#0a0', values: [2] },
      { name: 'withdrawn', colour: '#a00', values: [1] },
    ],
  }).toString();
  const plot = 160 - 8 - 22;
  assert.deepEqual(heights(grouped, 'granted'), [[plot, 2]]);
  assert.deepEqual(heights(grouped, 'withdrawn'), [[plot / 2, 1]]);
  const empty = barChart({ title: 'Quiet', days: ['2026-01-01'], layout: 'grouped', series: [] }).toString();
  assert.match(empty, /Nothing in these 30 days\./);
});

test('names and titles are escaped', () => {
  const svg = barChart({
    title: '<script>alert(1)</script>',
    days: ['2026-01-01'],
    layout: 'stacked',
    series: [{ name: '"><img src=x>', colour: '#000', values: [1] }],
  }).toString();
  assert.doesNotMatch(svg, /<script>|<img/);
  assert.match(svg, /&lt;script&gt;/);
});
