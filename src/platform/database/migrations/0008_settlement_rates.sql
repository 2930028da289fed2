-- Settlement rates. A corridor's spread is what the service keeps on the conversion, in basis
-- points of the mid-market rate. Each GET /v2/settlement-rates locks a rate: the customer rate of
-- every execution interval, fixed until expiry_time, for one settlement at most.
ALTER TABLE corridors
  ADD COLUMN rate_spread_bps integer NOT NULL DEFAULT 50 CHECK (rate_spread_bps BETWEEN 0 AND 1000);

CREATE TABLE settlement_rates (
  rate_id                uuid PRIMARY KEY,
  source_member_id       text NOT NULL,
  destination_member_id  text NOT NULL,
  source_ccy             text NOT NULL CHECK (source_ccy ~ '^[A-Z]{3}$'),
  destination_ccy        text NOT NULL CHECK (destination_ccy ~ '^[A-Z]{3}$'),
  -- one unit of source_ccy in destination_ccy, per execution interval in the order
  -- IMMEDIATE, ONE_HOUR .. SIX_HOURS; the first is the rate
  forecast_rates         numeric(24, 6)[] NOT NULL CHECK (cardinality(forecast_rates) = 7 AND 0 < ALL (forecast_rates)),
  mid_rate               numeric(24, 6) NOT NULL CHECK (mid_rate > 0),
  spread_bps             integer NOT NULL,
  created_at             timestamptz NOT NULL,
  expiry_time            timestamptz NOT NULL CHECK (expiry_time >= created_at),
  -- the settlement that used the rate (a rate serves one settlement only)
  used_by                uuid UNIQUE,
  FOREIGN KEY (source_member_id, destination_member_id, destination_ccy)
    REFERENCES corridors (source_member_id, destination_member_id, destination_ccy)
);
CREATE INDEX settlement_rates_member_idx ON settlement_rates (source_member_id, created_at);
