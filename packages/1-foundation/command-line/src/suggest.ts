// "Did you mean ...?" for a mistyped command or option, on both command lines.

/** Levenshtein distance: the fewest insertions, deletions and substitutions from a to b. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The closest candidate within a third of the word's length (at least 2 edits), if any. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  const allowed = Math.max(2, Math.floor(typed.length / 3));
  let best: { candidate: string; score: number } | undefined;
  for (const candidate of candidates) {
    const score = distance(typed, candidate);
    if (score <= allowed && (!best || score < best.score)) best = { candidate, score };
  }
  return best?.candidate;
}
