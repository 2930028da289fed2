// The service's clock, handed to services so that tests can set the time.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
