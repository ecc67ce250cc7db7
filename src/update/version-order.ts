/**
 * Semantic-version order (semver.org §11), for refusing a signed but older release (a downgrade,
 * or a replay of an old signed SHA256SUMS): major.minor.patch numerically, a pre-release below its
 * release, pre-release identifiers compared one by one (numeric ones numerically and below
 * alphanumeric ones, a shorter list below a longer one with the same start); build metadata is
 * ignored. A version that is not semver is ordered by plain comparison after every semver one.
 */
const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/** Negative when `a` is older than `b`, 0 when they rank equal, positive when newer. */
export function compareVersions(a: string, b: string): number {
  const pa = SEMVER.exec(a);
  const pb = SEMVER.exec(b);
  if (pa === null || pb === null) return pa !== null ? -1 : pb !== null ? 1 : a < b ? -1 : a > b ? 1 : 0;
  for (let i = 1; i <= 3; i++) {
    const diff = Number(pa[i]) - Number(pb[i]);
    if (diff !== 0) return Math.sign(diff);
  }
  return comparePre(pa[4], pb[4]);
}

function comparePre(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  const xs = a.split(".");
  const ys = b.split(".");
  for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
    const x = xs[i]!;
    const y = ys[i]!;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) {
      const diff = Number(x) - Number(y);
      if (diff !== 0) return Math.sign(diff);
    } else if (xn !== yn) return xn ? -1 : 1;
    else if (x !== y) return x < y ? -1 : 1;
  }
  return Math.sign(xs.length - ys.length);
}
