-- Per-client request counts shared by every process (fixed windows). UNLOGGED: not written to the
-- WAL (cheap to update often) and emptied after a crash, which only forgets the current window.
CREATE UNLOGGED TABLE rate_limit_counters (
  key text NOT NULL,
  window_start_ms bigint NOT NULL,
  count bigint NOT NULL CHECK (count >= 0),
  PRIMARY KEY (key, window_start_ms)
);
CREATE INDEX rate_limit_counters_window ON rate_limit_counters (window_start_ms);
