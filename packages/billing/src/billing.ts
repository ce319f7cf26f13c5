import type { Redis } from 'ioredis';
import { z } from 'zod';
import { AppError, formatMoney, MAX_MICRO_UNITS, runStep, type Step } from '@relay/core';
import { AGGREGATE_RETENTION_DAYS, ALL_ACCOUNTS, unitCount, usageKeys, utcDay, utcMonth } from './daily.js';
import { billingKeys } from './keys.js';
import {
  beginScript,
  stopScript,
  carveScript,
  closeScript,
  creditScript,
  openLongerThanScript,
  reserveScript,
  type ReservationState,
} from './commands.js';

export { reservationStateSchema, type ReservationState } from './commands.js';

export interface Reservation {
  accountId: string;
  keyId: string;
  jobId: string;
  model: string;
  /** Micro-units held: the most the request can cost. */
  amount: number;
  /** What was reserved for, in the model's billing units (images, or "in:…,out:…" tokens). */
  units: string;
  /** The caller's own end user (OpenAI's `user`), kept with every ledger entry of the job. */
  user?: string;
}

export const balanceSchema = z.object({
  /** Available for new reservations, in micro-units. */
  balance: z.number().int(),
  /** Held for jobs still running. */
  reserved: z.number().int(),
  /** Charged over the account's life. */
  spent: z.number().int(),
});
export type Balance = z.output<typeof balanceSchema>;

/** A call's channel lease as its begin checks it: the pick's token and the keys of the lease sets one of which holds it. */
export interface BeginLease {
  token: string;
  sets: string[];
}

export interface Billing {
  /** Holds `amount`; throws 402 when the available balance is smaller. Repeating it for the same job is a no-op. */
  reserve(r: Reservation): Promise<{ balance: number; reserved: number }>;
  /**
   * A batch's hold: a reservation like any other (402, ledger entry, release), which its batch
   * carves its lines' reservations from and releases itself; no sweeper gives it back.
   */
  hold(r: Reservation): Promise<{ balance: number; reserved: number }>;
  /**
   * A batch line's reservation taken from its batch's hold (`holdId`), the balance covering any
   * shortfall: `made`, `exists` (with the line's state: a line fed before), or `short`.
   */
  carve(holdId: string, r: Reservation): Promise<{ outcome: 'made' | 'exists' | 'short'; state?: ReservationState }>;
  /**
   * Charges what was delivered (at most the reservation) and releases the rest; a second call
   * changes nothing. `channel`: the upstream channel(s) that served the job, for the ledger.
   */
  settle(accountId: string, jobId: string, charge: number, units: string, channel?: string): Promise<{ charged: number; applied: boolean }>;
  /** Gives the whole reservation back (failure, cancel before start); a second call changes nothing. */
  release(jobId: string): Promise<{ applied: boolean }>;
  /** Cancels a job whose upstream call has not begun: all given back. False once it began. */
  cancel(jobId: string): Promise<{ applied: boolean }>;
  /**
   * Called right before each upstream call: `begin` it may; `cancelled` it must not (the job was
   * cancelled before it began); `stopped` it must not either, its owner stopped the begun job.
   * `tell`: a set of inboxes (streams) told in the same step that the call may begin (a 'started'
   * notice, @relay/life's shape), for those following the job: no round trip of its own.
   * `lease`: the call's channel lease, picked in the same round trip just before (the pick's token
   * and the lease sets one of which holds it); `unleased` when none does: the pick found no
   * channel, and the job has not begun (a cancelled or stopped job is told so all the same).
   */
  begin(
    jobId: string,
    tell?: { inboxes: string; maxLength: number },
    lease?: BeginLease,
  ): Promise<'begin' | 'cancelled' | 'stopped' | 'unleased'>;
  /** Stops a job whose upstream call began: no further call begins. False when it is not running. */
  stop(jobId: string): Promise<boolean>;
  /** Whether the owner asked a begun job to stop (read where no call begins, such as a wait for a cooling channel). */
  stopping(jobId: string): Promise<boolean>;
  /** A job with no open reservation (released, or none) must not run. */
  reservationState(jobId: string): Promise<ReservationState | undefined>;
  /** Jobs whose reservation has been open longer than `olderThanMs` (Redis's clock), oldest first. */
  openLongerThan(olderThanMs: number, limit: number): Promise<string[]>;
  credit(accountId: string, amount: number, note?: string): Promise<{ balance: number }>;
  balanceOf(accountId: string): Promise<Balance | undefined>;
  /** The same calls as steps, to send with others in one round trip (runSteps). */
  steps: {
    /** reserve's step: its reply through `reserved` (which throws as reserve does). */
    reserve(r: Reservation): Step<ReserveReply>;
    carve(holdId: string, r: Reservation): Step<Awaited<ReturnType<Billing['carve']>>>;
    settle(accountId: string, jobId: string, charge: number, units: string, channel?: string): Step<{ charged: number; applied: boolean }>;
    begin(jobId: string, tell?: { inboxes: string; maxLength: number }, lease?: BeginLease): Step<Awaited<ReturnType<Billing['begin']>>>;
  };
}

export type ReserveReply = { status: -1 | 0 | 1 | 2; balance: number; reserved: number };

/** What a reservation's reply means: the figures, or the 401/402 a client gets. */
export function reserved(r: Pick<Reservation, 'amount'>, { status, balance, reserved }: ReserveReply) {
  if (status === -1) throw new AppError('unauthorized', 'the key belongs to no account');
  if (status === 0) {
    throw new AppError(
      'insufficient_balance',
      `insufficient balance: this request may cost up to ${formatMoney(r.amount)} and the account has ${formatMoney(balance)} available`,
    );
  }
  return { balance, reserved };
}

/** How long a closed reservation stays readable for audits. */
const CLOSED_RETENTION_SECONDS = 7 * 86_400;

/**
 * `clock`: the time that decides which day and month a settlement counts in (the usage
 * aggregates, UTC); tests give a fixed one, so a run across midnight counts where they look.
 */
export function createBilling(redis: Redis, prefix: string, clock: () => number = Date.now): Billing {
  const keys = billingKeys(prefix);
  const usage = usageKeys(prefix);
  const closeStep = (
    type: 'settle' | 'release' | 'cancel',
    accountId: string,
    jobId: string,
    charge: number,
    units: string,
    channel = '',
  ) => {
    const now = clock();
    const [day, month] = [utcDay(now), utcMonth(now)];
    return closeScript.step(
      {
        reservation: keys.reservation(jobId),
        account: keys.account(accountId),
        ledger: keys.ledger(accountId),
        open: keys.open,
        accountDay: usage.day(day, accountId),
        relayDay: usage.day(day, ALL_ACCOUNTS),
      },
      {
        type,
        charge,
        units,
        retentionSeconds: CLOSED_RETENTION_SECONDS,
        unitCount: unitCount(units),
        aggregateRetentionSeconds: AGGREGATE_RETENTION_DAYS * 86_400,
        channel,
        month,
      },
    );
  };
  const close = (...args: Parameters<typeof closeStep>) => runStep(redis, closeStep(...args));
  const settleStep = (accountId: string, jobId: string, charge: number, units: string, channel?: string) => {
    const step = closeStep('settle', accountId, jobId, Math.max(0, Math.round(charge)), units, channel);
    return {
      ...step,
      parse: (raw: unknown) => {
        const { applied, charged } = step.parse(raw);
        return { applied, charged };
      },
    };
  };
  const reserveStep = (r: Reservation, tracked: boolean) =>
    reserveScript.step(
      { account: keys.account(r.accountId), reservation: keys.reservation(r.jobId), ledger: keys.ledger(r.accountId), open: keys.open },
      {
        amount: r.amount,
        accountId: r.accountId,
        keyId: r.keyId,
        jobId: r.jobId,
        model: r.model,
        units: r.units,
        user: r.user ?? '',
        tracked: tracked ? '1' : '0',
      },
    );
  const beginStep: Billing['steps']['begin'] = (jobId, tell, lease) =>
    beginScript.step(
      { reservation: keys.reservation(jobId), tell: tell?.inboxes ?? keys.reservation(jobId) },
      { jobId: tell ? jobId : '', maxLength: tell?.maxLength ?? 0, token: lease?.token ?? '' },
      ...(lease?.sets ?? []),
    );
  const carveStep = (holdId: string, r: Reservation) =>
    carveScript.step(
      {
        hold: keys.reservation(holdId),
        line: keys.reservation(r.jobId),
        account: keys.account(r.accountId),
        ledger: keys.ledger(r.accountId),
        open: keys.open,
      },
      { amount: r.amount, accountId: r.accountId, keyId: r.keyId, jobId: r.jobId, model: r.model, units: r.units, user: r.user ?? '' },
    );

  const reserve = async (r: Reservation, tracked: boolean) => reserved(r, await runStep(redis, reserveStep(r, tracked)));

  return {
    reserve: (r) => reserve(r, true),
    hold: (r) => reserve(r, false),
    carve: (holdId, r) => runStep(redis, carveStep(holdId, r)),
    settle: (accountId, jobId, charge, units, channel) => runStep(redis, settleStep(accountId, jobId, charge, units, channel)),
    async release(jobId) {
      const accountId = await redis.hget(keys.reservation(jobId), 'accountId');
      if (!accountId) return { applied: false };
      const { applied } = await close('release', accountId, jobId, 0, '');
      return { applied };
    },
    async cancel(jobId) {
      const accountId = await redis.hget(keys.reservation(jobId), 'accountId');
      if (!accountId) return { applied: false };
      const { applied } = await close('cancel', accountId, jobId, 0, '');
      return { applied };
    },
    begin: (jobId, tell, lease) => runStep(redis, beginStep(jobId, tell, lease)),
    stop: (jobId) => stopScript(redis, { reservation: keys.reservation(jobId) }, {}),
    stopping: async (jobId) => (await redis.hget(keys.reservation(jobId), 'stop')) === '1',
    openLongerThan: (olderThanMs, limit) => openLongerThanScript(redis, { open: keys.open }, { ageMs: olderThanMs, limit }),
    async reservationState(jobId) {
      const state = await redis.hget(keys.reservation(jobId), 'state');
      return (state ?? undefined) as ReservationState | undefined;
    },
    async credit(accountId, amount, note = '') {
      if (!Number.isSafeInteger(amount) || Math.abs(amount) > MAX_MICRO_UNITS)
        throw new AppError('invalid_request', `amount ${amount} is not an integer of micro-units within ±${MAX_MICRO_UNITS}`, {
          param: 'amount',
        });
      const { status, balance, reserved } = await creditScript(
        redis,
        { account: keys.account(accountId), ledger: keys.ledger(accountId) },
        { amount, accountId, note, ceiling: MAX_MICRO_UNITS },
      );
      if (status === -1) throw new AppError('not_found', `no account ${accountId}`);
      if (status === 0)
        throw new AppError('invalid_request', `a debit of ${-amount} would leave the balance (${balance}) below zero`, { param: 'amount' });
      if (status === -2)
        throw new AppError(
          'invalid_request',
          `a credit of ${amount} would take the account (balance ${balance}, reserved ${reserved}) past ${MAX_MICRO_UNITS} micro-units ` +
            `(${formatMoney(MAX_MICRO_UNITS)} units), the most one account may hold: nothing was credited; ` +
            `at most ${Math.max(0, MAX_MICRO_UNITS - balance - reserved)} more fits`,
          { param: 'amount' },
        );
      return { balance };
    },
    async balanceOf(accountId) {
      const [balance, reserved, spent] = await redis.hmget(keys.account(accountId), 'balance', 'reserved', 'spent');
      const exists = await redis.exists(keys.account(accountId));
      return exists ? { balance: Number(balance ?? 0), reserved: Number(reserved ?? 0), spent: Number(spent ?? 0) } : undefined;
    },
    steps: { reserve: (r) => reserveStep(r, true), carve: carveStep, settle: settleStep, begin: beginStep },
  };
}
