-- Failed authentication attempts, counted per bucket (a source address, a client id, or the pair)
-- in fixed time windows, so that every service process on this database sees the same counts.
-- Only failures write here; a successful token request or API call never does.
-- UNLOGGED: these counters are worth less than the WAL they would cost; after a crash of
-- PostgreSQL they start again from zero, which only gives an attacker one fresh window.
CREATE UNLOGGED TABLE auth_failures (
  bucket       text NOT NULL,
  window_start timestamptz NOT NULL,
  failures     integer NOT NULL CHECK (failures > 0),
  PRIMARY KEY (bucket, window_start)
);
-- pruning deletes past windows
CREATE INDEX auth_failures_window_start_idx ON auth_failures (window_start);
