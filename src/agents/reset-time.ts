// Reset times as agent CLIs print them ("resets 3pm (Europe/Paris)", "try again at 8:41 AM",
// "reset after 1h2m3s"), turned into instants. Clock times without a date are the next such time.
/** A quota's reset is resumed a little late: limits lift on the provider's clock, not ours. */
export const QUOTA_RESUME_MARGIN_MS = 2 * 60_000;

/** When to resume after a reset: the margin later, on a whole second (schedules have no finer grain). */
export function resumeAfterReset(reset: Date): string {
  return new Date(Math.ceil((reset.getTime() + QUOTA_RESUME_MARGIN_MS) / 1000) * 1000).toISOString();
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** "3pm", "3:30 pm", "15:00" with an optional IANA zone (default: this process's); null when not a clock time. */
export function nextClockTime(clock: string, zone: string | null, now: Date): Date | null {
  const match = /^(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?$/i.exec(clock.trim());
  if (!match) return null;
  let hour = Number(match[1]);
  const minute = Number(match[2] ?? 0);
  const meridiem = match[3]?.toLowerCase().replace(/\./g, '');
  if (meridiem) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (meridiem === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return null;
  const tz = zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!isZone(tz)) return null;
  const today = zonedParts(now, tz);
  for (const dayOffset of [0, 1]) {
    const at = zonedInstant(today.year, today.month, today.day + dayOffset, hour, minute, tz);
    if (at.getTime() > now.getTime()) return at;
  }
  return null;
}

/** "Dec 2nd, 2026" or "Dec 2" with a clock time, in a zone. */
export function datedClockTime(date: string, clock: string, zone: string | null, now: Date): Date | null {
  const match = /^([a-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?(?:\s+(\d{4}))?$/i.exec(date.trim());
  const month = match ? MONTHS.indexOf(match[1].toLowerCase()) : -1;
  const time = nextClockTime(clock, zone, now);
  if (!match || month < 0 || !time) return null;
  const tz = zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const { hour, minute } = zonedParts(time, tz);
  return zonedInstant(Number(match[3] ?? zonedParts(now, tz).year), month + 1, Number(match[2]), hour, minute, tz);
}

/** "1h2m3s", "45s", "2.5s", "90m" from now; null when not a duration. */
export function afterDuration(text: string, now: Date): Date | null {
  const match = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+(?:\.\d+)?)s)?$/.exec(text.trim());
  if (!match || !(match[1] || match[2] || match[3])) return null;
  const seconds = Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  return new Date(now.getTime() + Math.ceil(seconds * 1000));
}

/** "5 days 22 hours 11 minutes", "3 hours", "1 day 4 minutes" from now; null when not such a span. */
export function afterWords(text: string, now: Date): Date | null {
  const units: Record<string, number> = { day: 86_400, hour: 3600, minute: 60, second: 1 };
  const parts = [...text.matchAll(/(\d+)\s*(day|hour|minute|second)s?/gi)];
  if (!parts.length) return null;
  const seconds = parts.reduce((total, [, n, unit]) => total + Number(n) * units[unit.toLowerCase()], 0);
  return new Date(now.getTime() + seconds * 1000);
}

export function isZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function zonedParts(at: Date, zone: string) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour'), minute: part('minute'), second: part('second') };
}

/** The instant a wall-clock time in `zone` names (two passes settle the zone's offset, DST included). */
function zonedInstant(year: number, month: number, day: number, hour: number, minute: number, zone: string): Date {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  let guess = wall;
  for (let pass = 0; pass < 2; pass++) {
    const p = zonedParts(new Date(guess), zone);
    guess += wall - Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  }
  return new Date(guess);
}

/**
 * The reset time in a usage-limit message, in any of the phrasings the CLIs print: "resets 3pm
 * (Europe/Paris)", "resets Dec 3, 9am (UTC)", "try again at 8:41 AM", "reset after 1h2m", "retry in 41s".
 */
export function resetTimeOf(text: string, now: Date): Date | null {
  const zoneOf = (match: RegExpExecArray, group: number) => match[group] ?? null;
  const resets =
    /\bresets?\s+(?:at\s+)?(?:([A-Z][a-z]{2,8}\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?),?\s+)?(\d{1,2}(?::\d{2})?\s*[ap]\.?m\.?|\d{1,2}:\d{2})(?:\s*\(([\w/+-]+)\))?/i.exec(
      text,
    );
  if (resets)
    return resets[1] ? datedClockTime(resets[1], resets[2], zoneOf(resets, 3), now) : nextClockTime(resets[2], zoneOf(resets, 3), now);
  const again =
    /try again at\s+(?:([A-Z][a-z]{2,8}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})\s+)?(\d{1,2}:\d{2}\s*[AP]M)(?:\s*\(([\w/+-]+)\))?/i.exec(
      text,
    );
  if (again) return again[1] ? datedClockTime(again[1], again[2], zoneOf(again, 3), now) : nextClockTime(again[2], zoneOf(again, 3), now);
  const willReset = /reset at\s+(\d{1,2}(?::\d{2})?\s*[ap]\.?m\.?)(?:\s*\(([\w/+-]+)\))?/i.exec(text);
  if (willReset) return nextClockTime(willReset[1], zoneOf(willReset, 2), now);
  const inWords = /try again in\s+((?:\d+\s*(?:days?|hours?|minutes?|seconds?)\s*)+)/i.exec(text);
  if (inWords) return afterWords(inWords[1], now);
  const after = /(?:reset after|retry after|retry in)\s+((?:\d+h)?(?:\d+m)?(?:[\d.]+s)?)\b/i.exec(text);
  return after ? afterDuration(after[1], now) : null;
}
