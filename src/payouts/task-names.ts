// graphile-worker task names of the payout area (handlers in jobs.ts).
export const EXPIRE_TASK = 'payout.expire';
export const CANCEL_TASK = 'payout.cancel';
export const FINISH_SUBMISSION_TASK = 'payout.finish_submission';
export const PARTNER_REPORT_TASK = 'payout.partner_report';
export const RECOVER_SUBMISSIONS_TASK = 'payout.recover_submissions';
export const RECOVERY_SWEEP_JOB_KEY = 'payout-recovery-sweep';
