// The service's clock, handed to services so that tests can set the time.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

const LEAP_SECOND = /^(.+[Tt ]\d\d:\d\d:)60(?:\.\d+)?(.*)$/;

/**
 * An RFC 3339 date-time as an instant. RFC 3339 allows a leap second (23:59:60), which Date does
 * not read; it is taken as the instant it ends, the next minute's first, as POSIX time counts it.
 */
export function instantOf(dateTime: string): Date {
  const leap = LEAP_SECOND.exec(dateTime);
  if (!leap) return new Date(dateTime);
  return new Date(new Date(`${leap[1]}59${leap[2]}`).getTime() + 1000);
}
