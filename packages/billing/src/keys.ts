/** Where the money lives in Redis. */
export const billingKeys = (prefix: string) => ({
  /** balance, reserved, spent, and the spend of the month it names (month, monthSpent) */
  account: (accountId: string) => `${prefix}:account:${accountId}`,
  reservation: (jobId: string) => `${prefix}:reservation:${jobId}`,
  ledger: (accountId: string) => `${prefix}:ledger:${accountId}`,
  /** Open reservations by creation time (ms): what a sweeper looks at for abandoned ones. */
  open: `${prefix}:reservations:open`,
});
