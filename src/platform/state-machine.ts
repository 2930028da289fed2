// State machines are written as tables of moves; this is the one lookup every table is read with.
export interface Move<S, E> {
  from: S;
  event: E;
  to: S;
}

/** The move the table lists for this event from this state, or undefined when there is none. */
export function findMove<S, E, M extends Move<S, E>>(table: ReadonlyArray<M>, from: S, event: E): M | undefined {
  return table.find((move) => move.from === from && move.event === event);
}
