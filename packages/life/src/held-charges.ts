import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger, ScriptHost, Step, StepOutcome } from '@relay/core';
import type { MoveRider } from '@relay/jobs';

/** A charge sent with a job's move that failed is sent again after these waits: it is made once however often it is sent. */
const AGAIN_MS = [1_000, 5_000, 25_000];
/** At most this many charges are held (each only between a job's return and its move): past it a charge is made at once. */
export const HELD_MAX = 10_000;

/** A charge's steps, and what their outcomes come to (throws when the charge failed). */
export interface HeldCharge<T> {
  steps: Step<unknown>[];
  charged(outcomes: StepOutcome<unknown>[]): T;
}

interface Held<S, T> {
  steps: S;
  resolve: (outcome: T) => void;
  reject: (error: Error) => void;
}

/**
 * Charges held for the moves of their jobs to completed (@relay/jobs' MoveHooks): each waits,
 * by its job's id, for the move to go out and runs just before it, in the same script.
 * One the hooks never took (a worker without them) is sent once BullMQ says the job completed;
 * one whose job failed instead is dropped.
 */
export function createHeldCharges<S extends HeldCharge<T>, T>(
  send: (redis: ScriptHost, steps: S) => Promise<T>,
  redis: ScriptHost,
  log: Logger,
) {
  const waiting = new Map<string, Held<S, T>>();

  /** The move went out with the charge, which failed (its connection dropped, Redis refused it): sent again. */
  const sendAgain = async (jobId: string, held: Held<S, T>, first: Error) => {
    let error = first;
    for (const ms of AGAIN_MS) {
      log.warn({ jobId, err: error.message, againInMs: ms }, "the charge sent with a job's end failed; sending it again");
      await sleep(ms);
      try {
        return held.resolve(await send(redis, held.steps));
      } catch (again) {
        error = again as Error;
      }
    }
    log.error({ jobId, err: error.message }, 'a completed job could not be charged: its reservation stays held, uncharged');
    held.reject(error);
  };

  const sendOn = (connection: ScriptHost, jobId: string) => {
    const held = waiting.get(jobId);
    if (!held) return;
    waiting.delete(jobId);
    send(connection, held.steps).then(held.resolve, (error: Error) => void sendAgain(jobId, held, error));
  };

  return {
    /** Whether one more charge may be held (else it is made at once). */
    room: () => waiting.size < HELD_MAX,
    /** Holds a job's charge for its move: resolves with its outcome once it was sent. */
    hold: (jobId: string, steps: S) => new Promise<T>((resolve, reject) => waiting.set(jobId, { steps, resolve, reject })),
    /** The job's move is going out: its charge rides in the same script, just before it. */
    ride(jobId: string): MoveRider | undefined {
      const held = waiting.get(jobId);
      if (!held) return undefined;
      waiting.delete(jobId);
      return {
        steps: held.steps.steps,
        told(outcomes) {
          let outcome: T;
          try {
            outcome = held.steps.charged(outcomes);
          } catch (error) {
            return void sendAgain(jobId, held, error as Error);
          }
          held.resolve(outcome);
        },
      };
    },
    /** BullMQ says the job completed and its charge is still held: sent now, after the move. */
    sendLate(jobId: string) {
      if (!waiting.has(jobId)) return;
      log.warn({ jobId }, "a job's charge was not sent with its end (its worker carries no hooks): sent now");
      sendOn(redis, jobId);
    },
    /** The job was not moved to completed: its charge is not made. */
    drop(jobId: string) {
      const held = waiting.get(jobId);
      if (!held) return;
      waiting.delete(jobId);
      held.reject(new Error('the job ended without being moved to completed: nothing was charged'));
    },
  };
}
