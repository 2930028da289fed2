// The sandbox's rate source: a mid-market table per currency pair that drifts a little, the same
// way for everyone at the same minute (a triangle wave of +-15 basis points over two hours), and
// a forecast that moves by a fixed number of basis points per hour ahead (the pair's forward
// drift). Integer arithmetic throughout, so every quote is reproducible from the time alone.
import { divideHalfUp, toScaled } from '../platform/money.ts';
import { EXECUTION_INTERVALS, hoursOf } from './intervals.ts';
import { ok, refuse } from '../platform/result.ts';
import { RATE_DECIMALS, type QuoteResult, type RateSource } from './rate-source.ts';

interface PairTerms {
  /** One unit of the source currency in the destination currency, decimal text. */
  mid: string;
  /** Forward drift per hour ahead, in basis points (positive: the destination currency weakens). */
  hourlyDriftBps: number;
}

export const SANDBOX_MID_RATES: Record<string, PairTerms> = {
  'USD/MXN': { mid: '17.0523', hourlyDriftBps: 1 },
  'USD/BRL': { mid: '5.4210', hourlyDriftBps: 2 },
  'USD/PHP': { mid: '58.3150', hourlyDriftBps: 1 },
  'USD/INR': { mid: '84.1020', hourlyDriftBps: 1 },
  'USD/NGN': { mid: '1548.25', hourlyDriftBps: 6 },
  'USD/KES': { mid: '129.20', hourlyDriftBps: 2 },
  'USD/GHS': { mid: '15.43', hourlyDriftBps: 4 },
};

const BPS = 10_000n;
const DRIFT_PERIOD_MINUTES = 120;
const DRIFT_AMPLITUDE_TENTHS_BPS = 150; // 15 basis points, in tenths of a basis point
/** Tenths of a basis point per minute: from -amplitude to +amplitude in half a period. */
const DRIFT_STEP = (2 * DRIFT_AMPLITUDE_TENTHS_BPS) / (DRIFT_PERIOD_MINUTES / 2); // 5

/** The drift at a minute, in tenths of a basis point: a triangle wave between -150 and +150. */
export function driftTenthsBps(at: Date): number {
  const phase = Math.floor(at.getTime() / 60_000) % DRIFT_PERIOD_MINUTES; // 0..119
  const rising = phase < DRIFT_PERIOD_MINUTES / 2 ? phase : DRIFT_PERIOD_MINUTES - phase; // 0..60..1
  return rising * DRIFT_STEP - DRIFT_AMPLITUDE_TENTHS_BPS;
}

export const sandboxRateSource: RateSource = {
  async quote(sourceCcy, destinationCcy, at): Promise<QuoteResult> {
    const terms = SANDBOX_MID_RATES[`${sourceCcy}/${destinationCcy}`];
    if (!terms) return refuse('NOT_QUOTED');
    const base = toScaled(terms.mid, RATE_DECIMALS)!;
    const now = divideHalfUp(base * (BPS * 10n + BigInt(driftTenthsBps(at))), BPS * 10n);
    const forecast = EXECUTION_INTERVALS.map((interval) =>
      divideHalfUp(now * (BPS + BigInt(hoursOf(interval) * terms.hourlyDriftBps)), BPS));
    return ok({ forecast });
  },
};
