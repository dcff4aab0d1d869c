// How numbers and times read on the pages.
export const usd = (value: number | null): string => (value === null ? '–' : `$${value.toFixed(value < 1 ? 4 : 2)}`);

export const tokens = (value: number | null): string =>
  value === null
    ? '–'
    : value >= 1_000_000
      ? `${(value / 1_000_000).toFixed(1)}M`
      : value >= 1_000
        ? `${(value / 1_000).toFixed(1)}k`
        : String(value);

/** How long ago, coarsely: "12 s", "4 min", "3 h", "2 d". */
export function ago(time: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(time)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}
