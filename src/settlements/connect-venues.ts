// Which venues a settlement passes through, by mode and configuration:
//
//   sandbox                    every venue simulated (sandbox-venues.ts)
//   sandbox + CHAIN_RPC_URL    the real chain rail (src/chain/) between simulated exchanges and bank, to try a chain
//   production + CHAIN_*       the treasury's stablecoin inventory (treasury-exchange.ts), the chain rail to the
//                              destination member's wallet, and the destination member itself over the partner
//                              protocol (partner-venues.ts): it converts, credits the prefund and confirms, signed
//   production, no chain       NO_VENUES: every step is refused before anything moves
import type { ChainConfig } from '../chain/config.ts';
import { connectChainTransfers } from '../chain/connect.ts';
import type { SigningKey } from '../partners/signatures.ts';
import { createRailAgent } from '../payouts/rails/http.ts';
import type { Db } from '../platform/database/pool.ts';
import { createPartnerSettlementVenues } from './partner-venues.ts';
import { createSandboxVenues } from './sandbox-venues.ts';
import { createTreasuryExchange } from './treasury-exchange.ts';
import { NO_VENUES, type Venues } from './venues.ts';

export interface VenueSettings {
  mode: 'sandbox' | 'production';
  db: Db;
  chain: ChainConfig | undefined;
  /** The key the service signs partner calls with. */
  signingKey: SigningKey;
  treasuryPeggedCurrencies: readonly string[];
}

export interface ConnectedVenues {
  venues: Venues;
  /** What each venue is, for the startup log. */
  description: string;
  close(): Promise<void>;
}

export async function connectVenues(settings: VenueSettings): Promise<ConnectedVenues> {
  const { db } = settings;
  if (!settings.chain) {
    return settings.mode === 'sandbox'
      ? { venues: createSandboxVenues(db), description: 'simulated', close: async () => undefined }
      : { venues: NO_VENUES, description: 'none (set CHAIN_* to move settlements)', close: async () => undefined };
  }
  // the rail checks the node's chain id and reads the token's symbol and decimals: a misconfiguration stops the start
  const chain = await connectChainTransfers(settings.chain, db);
  if (settings.mode === 'sandbox') {
    return { venues: { ...createSandboxVenues(db), chain }, description: `simulated exchanges and bank, ${chain.asset} on chain ${settings.chain.chainId}`, close: async () => undefined };
  }
  const dispatcher = createRailAgent();
  const destination = createPartnerSettlementVenues({ db, signingKey: settings.signingKey, asset: chain.asset, dispatcher });
  return {
    venues: {
      sourceExchange: createTreasuryExchange({ db, asset: chain.asset, peggedCurrencies: settings.treasuryPeggedCurrencies }),
      chain,
      destinationExchange: destination.destinationExchange,
      bank: destination.bank,
    },
    description: `treasury ${chain.asset} on chain ${settings.chain.chainId}, destination members over the partner protocol`,
    close: () => dispatcher.close(),
  };
}
