import { startStack } from '@relay/e2e';
import { entriesByJob, fullLedger, moneyProblems, unfinishedJobs, type Deliveries } from '../invariants.js';
import { batchProblems, endedBatches, type BatchRun } from './batches.js';
import { paidResultProblems, redisProblems } from './checks.js';
import { Cluster } from './cluster.js';
import { KNOBS } from '../knobs.js';
import { describeStep, drawSchedule, formatSchedule, type Schedule } from './schedule.js';
import { act } from './steps.js';
import { Traffic, type Account } from './traffic.js';

const CLIENTS = 6;
const ACCOUNTS = 3;
/** The longest a step may take (a process spawned on a loaded machine, an outage of so many answers): past it the relay is stuck. */
const STEP_DEADLINE_MS = 120_000;

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not over after ${ms / 1000} s`)), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A run that broke an invariant: the seed, the step it points at (when one can be named), and what broke. */
export class ChaosFailure extends Error {
  override name = 'ChaosFailure';
  constructor(
    readonly schedule: Schedule,
    /** The index of the step in force when the evidence arose; undefined for what only the final checks could see. */
    readonly step: number | undefined,
    readonly problems: string[],
  ) {
    const where =
      step === undefined
        ? 'step=checks'
        : step < 0
          ? 'step=0 (before the first step)'
          : `step=${step + 1} ${describeStep(schedule.steps[step]!)}`;
    super(`seed=${schedule.seed} ${where}\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

export interface ChaosResult {
  seed: number;
  steps: number;
  answers: number;
  statuses: Record<string, number>;
  accepted: number;
  delivered: number;
  batches: number;
  /** Batch steps whose batch the relay refused (a 503 in an outage): the schedule asked, the relay said no. */
  batchesRefused: number;
  settled: number;
}

/** Starts the relay, runs the seed's schedule under traffic, and checks the invariants; throws a ChaosFailure when one breaks. */
export async function runChaos(seed: number, minutes: number, log: (line: string) => void = console.log): Promise<ChaosResult> {
  const schedule = drawSchedule(seed, minutes);
  log(formatSchedule(schedule));
  const stack = await startStack({
    ...(schedule.sentinel ? { sentinel: true } : { ownRedis: true }),
    ownS3: true,
    ...KNOBS,
  });
  let cluster: Cluster | undefined;
  let traffic: Traffic | undefined;
  try {
    cluster = await Cluster.start(stack);
    const accounts: Account[] = await Promise.all(Array.from({ length: ACCOUNTS }, () => stack.newKey({ balance: 1_000_000_000_000 })));
    traffic = new Traffic(seed, accounts, cluster.bases);
    const batches: BatchRun[] = [];
    traffic.start(CLIENTS);
    for (const [index, step] of schedule.steps.entries()) {
      try {
        await traffic.answers.more(step.gap);
        traffic.step = index;
        log(`step ${index + 1} at answer ${traffic.answers.count}: ${describeStep(step)}`);
        await withDeadline(act({ stack, cluster, traffic, accounts, batches, log }, index, step.action), STEP_DEADLINE_MS);
      } catch (error) {
        throw new ChaosFailure(schedule, index, [`the step failed: ${error instanceof Error ? error.message : String(error)}`]);
      }
      throwOddities(schedule, traffic);
    }
    await traffic.stop();
    return await check(schedule, stack, traffic, accounts, batches);
  } finally {
    // a failed run's clients are left to meet the stack's end
    void traffic?.stop();
    cluster?.resumeAll();
    await stack.close();
  }
}

/** Answers a client could not act on fail the run at the step in force when the first came. */
function throwOddities(schedule: Schedule, traffic: Traffic) {
  const [first] = traffic.oddities;
  if (first)
    throw new ChaosFailure(
      schedule,
      first.step,
      traffic.oddities.map((o) => o.what),
    );
}

/** The invariants, once the schedule is over and the clients have stopped. */
async function check(
  schedule: Schedule,
  stack: Awaited<ReturnType<typeof startStack>>,
  traffic: Traffic,
  accounts: Account[],
  batches: BatchRun[],
): Promise<ChaosResult> {
  const stepOfJob = (problem: string) => traffic.accepted.get(/job (\S+)/.exec(problem)?.[1] ?? '')?.step;
  const fail = (problems: string[]) => {
    if (!problems.length) return;
    const steps = problems.map(stepOfJob).filter((s) => s !== undefined);
    throw new ChaosFailure(schedule, steps.length ? Math.min(...steps) : undefined, problems);
  };
  throwOddities(schedule, traffic);

  // every accepted job ends; nothing is left waiting or running
  fail(await unfinishedJobs(stack, traffic.accepted.keys()));

  // every batch ends (its lines are fed a few at a time: the queues drain before it does)
  const ended = await endedBatches(stack.url, batches);
  fail(ended.problems);

  // each line accounted for once, each delivered line settled once
  const ledgers = new Map(await Promise.all(accounts.map(async (a) => [a, await fullLedger(stack, a.accountId)] as const)));
  const settlements = new Map<string, number>();
  for (const ledger of ledgers.values())
    for (const [jobId, entries] of entriesByJob(ledger)) settlements.set(jobId, entries.filter((e) => e.type === 'settle').length);
  const lines = batchProblems(ended.batches, settlements);
  fail(lines.problems);

  // every charged job gives its result back (a batch line's in its output file), and the files it links are served
  const paid: Deliveries = new Map(lines.delivered);
  const charged = [...ledgers].flatMap(([account, ledger]) =>
    ledger.filter((e) => e.type === 'settle' && e.charged > 0).map((e) => ({ jobId: e.jobId, key: account.key })),
  );
  fail(
    await paidResultProblems(
      stack,
      charged.filter(({ jobId }) => !paid.has(jobId)),
      paid,
    ),
  );

  // money: reservations closed, the ledger sums to the balance, one charge per delivered unit, none both charged and refunded
  const delivered: Deliveries = new Map([...paid, ...traffic.delivered]);
  for (const account of accounts) fail(await moneyProblems(stack, account.accountId, delivered, lines.jobs));

  // nothing left in Redis beyond its retention
  fail(await redisProblems(stack));

  return {
    seed: schedule.seed,
    steps: schedule.steps.length,
    answers: traffic.answers.count,
    statuses: traffic.answers.statuses,
    accepted: traffic.accepted.size,
    delivered: delivered.size,
    batches: batches.length,
    batchesRefused: schedule.steps.filter((s) => s.action.do === 'batch').length - batches.length,
    settled: charged.length,
  };
}
