/** Line arithmetic on two versions of a text: lines added and removed, and the first line that differs. */

/** Lines added and removed between two texts: common head and tail skipped, the middle by longest common subsequence when small. */
export function lineCounts(before: string, after: string): { added: number; removed: number } {
  const a = linesOf(before);
  const b = linesOf(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const x = a.slice(start, endA);
  const y = b.slice(start, endB);
  // Past a few million cells the exact count is not worth the time: every line of the middle counts.
  if (x.length * y.length > 4_000_000) return { added: y.length, removed: x.length };
  let prev = new Array<number>(y.length + 1).fill(0);
  for (const line of x) {
    const row = new Array<number>(y.length + 1).fill(0);
    for (let j = 0; j < y.length; j++) row[j + 1] = line === y[j] ? prev[j]! + 1 : Math.max(prev[j + 1]!, row[j]!);
    prev = row;
  }
  const common = prev[y.length]!;
  return { added: y.length - common, removed: x.length - common };
}

/** The first line (1-based) where `after` differs from `before`. */
export function firstChangedLine(before: string, after: string): number {
  const a = before.split('\n');
  const b = after.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return Math.min(i, Math.max(b.length - 1, 0)) + 1;
}

/** Lines with their terminators, so a final newline is not a line of its own and adding one counts. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}
