// Execution intervals: when a settlement runs after its creation.
export const EXECUTION_INTERVALS = ['IMMEDIATE', 'ONE_HOUR', 'TWO_HOURS', 'THREE_HOURS', 'FOUR_HOURS', 'FIVE_HOURS', 'SIX_HOURS'] as const;
export type ExecutionInterval = (typeof EXECUTION_INTERVALS)[number];

/** Hours from creation to execution: the interval's position in the list. */
export const hoursOf = (interval: ExecutionInterval): number => EXECUTION_INTERVALS.indexOf(interval);
