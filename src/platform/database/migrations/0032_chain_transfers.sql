-- The chain rail's outbound transfers (src/chain/). Every signed transaction is recorded before it
-- is broadcast, so a crash anywhere resumes from these rows: see src/chain/transfers.ts.

-- The next nonce to give out per treasury account, shared by every process: allocated under this
-- row's lock in the transaction that records the intent.
CREATE TABLE chain_nonces (
  chain_id bigint NOT NULL CHECK (chain_id > 0),
  address text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  next_nonce bigint NOT NULL CHECK (next_nonce >= 0),
  PRIMARY KEY (chain_id, address)
);

CREATE TABLE chain_transfers (
  reference text PRIMARY KEY CHECK (length(reference) BETWEEN 1 AND 200),
  chain_id bigint NOT NULL,
  from_address text NOT NULL CHECK (from_address ~ '^0x[0-9a-f]{40}$'),
  token_address text NOT NULL CHECK (token_address ~ '^0x[0-9a-f]{40}$'),
  to_address text NOT NULL CHECK (to_address ~ '^0x[0-9a-f]{40}$'),
  amount_units numeric(78, 0) NOT NULL CHECK (amount_units > 0),
  nonce bigint NOT NULL CHECK (nonce >= 0),
  gas bigint NOT NULL CHECK (gas > 0),
  state text NOT NULL CHECK (state IN ('PREPARED', 'SIGNED', 'BROADCAST', 'CONFIRMED', 'NOT_SENT', 'IN_DOUBT')),
  -- CONFIRMED: the mined transaction; IN_DOUBT: the one the doubt is about (null when none is known)
  tx_hash text,
  block_number numeric(78, 0),
  reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- one transfer per nonce slot of an account: two recorded transfers never compete for a nonce
  UNIQUE (chain_id, from_address, nonce),
  CHECK (state <> 'CONFIRMED' OR (tx_hash IS NOT NULL AND block_number IS NOT NULL))
);
CREATE INDEX chain_transfers_unfinished ON chain_transfers (chain_id, from_address, nonce)
  WHERE state IN ('PREPARED', 'SIGNED', 'BROADCAST');

-- Each transaction of a transfer: the first, then same-nonce replacements with higher fees. A row
-- is written with its fees before signing, its signed bytes and hash before broadcasting.
CREATE TABLE chain_transfer_attempts (
  reference text NOT NULL REFERENCES chain_transfers (reference),
  attempt integer NOT NULL CHECK (attempt >= 1),
  max_fee_per_gas numeric(78, 0) NOT NULL CHECK (max_fee_per_gas > 0),
  max_priority_fee_per_gas numeric(78, 0) NOT NULL CHECK (max_priority_fee_per_gas >= 0 AND max_priority_fee_per_gas <= max_fee_per_gas),
  raw_transaction text CHECK (raw_transaction ~ '^0x[0-9a-f]+$'),
  tx_hash text UNIQUE CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  signed_at timestamptz,
  -- the first time these bytes were handed to the node: the age that decides a replacement
  first_broadcast_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (reference, attempt),
  CHECK ((raw_transaction IS NULL) = (tx_hash IS NULL)),
  CHECK (first_broadcast_at IS NULL OR raw_transaction IS NOT NULL)
);
