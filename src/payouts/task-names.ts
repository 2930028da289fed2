// graphile-worker task names of the payout area (handlers in jobs.ts).
/** Expires the payouts one creation batch listed: enqueued by earlier versions only, kept for their jobs. */
export const EXPIRE_TASK = 'payout.expire';
export const EXPIRE_DUE_TASK = 'payout.expire_due';
export const EXPIRY_SWEEP_JOB_KEY = 'payout-expiry-sweep';
export const CANCEL_TASK = 'payout.cancel';
export const FINISH_SUBMISSION_TASK = 'payout.finish_submission';
export const PARTNER_REPORT_TASK = 'payout.partner_report';
export const RECOVER_SUBMISSIONS_TASK = 'payout.recover_submissions';
export const RECOVERY_SWEEP_JOB_KEY = 'payout-recovery-sweep';
/** Asks a payout's partner what became of it after an unclear answer (doubt.ts). */
export const RESOLVE_DOUBT_TASK = 'payout.resolve_doubt';
