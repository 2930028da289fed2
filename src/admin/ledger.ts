// `npm run admin -- ledger check`: the ledger recomputed and compared (ledger/check.ts). Exits 1
// on any difference, so a scheduler or a deploy step can act on it.
import type { Db } from '../platform/database/pool.ts';
import { checkLedgerFully, differenceCount, type LedgerReport } from '../ledger/check.ts';

export const LEDGER_USAGE = `  ledger check   (account totals, currency balance, payouts' and settlements' transfers, dangling
                  transfers; exits 1 on any difference, listed with --json)`;

export const LEDGER_COMMANDS = ['ledger check'];

const KINDS = ['accountTotals', 'unbalancedCurrencies', 'payouts', 'settlements', 'danglingTransfers'] as const;

export async function executeLedger(db: Db): Promise<{ rows: object[]; note: string; differences: number; report: LedgerReport }> {
  const report = await checkLedgerFully(db);
  const differences = differenceCount(report);
  const rows = KINDS.map((kind) => ({ check: kind, differences: report[kind].count, first: report[kind].items[0]?.id ?? null }));
  const { accounts, payouts, settlements, transfers } = report.checked;
  const note = `Checked ${accounts} accounts, ${transfers} transfers, ${payouts} payouts, ${settlements} settlements: `
    + (differences === 0 ? 'no difference.' : `${differences} difference(s); run with --json for the list.`);
  return { rows, note, differences, report };
}
