import { IMAGE, SPEECH_PATH, speechBody } from '../helpers.js';
import { ACCEPTABLE_STATUSES, recordDelivery, type Deliveries } from '../invariants.js';
import { Answers } from './answers.js';
import { Draw } from './random.js';
import type { Mix, RequestKind } from './schedule.js';

export interface Account {
  key: string;
  accountId: string;
}

/** Something a client met that it could not act on (a 500, a 404 for its own job), and the step in force then. */
export interface Oddity {
  step: number;
  what: string;
}

/** Statuses a chaos client may meet: the relay's acceptable ones, and the requests whose client left first. */
const CHAOS_STATUSES = [...ACCEPTABLE_STATUSES, 'departed'];

/**
 * The longest a request may go unanswered: far beyond the api's wait (WAIT_TIMEOUT_MS, then a
 * 202) and a shutdown's grace. One that takes longer is a relay that stopped answering, a
 * failure of the run, not a wait to stretch.
 */
export const ANSWER_DEADLINE_MS = 60_000;

const FIRST_MIX: Mix = { image: 4, 'image-async': 2, 'images-2': 1, speech: 2, 'speech-async': 1, idempotent: 1, refused: 1 };

/**
 * The clients of a chaos run: a few that send requests one after another, each drawing what to
 * send from a sequence of its own seeded by the run's seed (so a seed replays the same requests
 * per client; which answer comes first is up to the processes), plus the one-off requests of
 * the schedule's steps (departures, cancels).
 */
export class Traffic {
  readonly answers = new Answers();
  /** Jobs the relay accepted (202), by id: the key that asked, and the step in force. */
  readonly accepted = new Map<string, { key: string; step: number }>();
  readonly delivered: Deliveries = new Map();
  readonly oddities: Oddity[] = [];
  mix: Mix = FIRST_MIX;
  /** The step in force (its index), for what an answer shows to name it. */
  step = -1;
  private stopped = false;
  private running: Array<Promise<void>> = [];

  constructor(
    private readonly seed: number,
    private readonly accounts: Account[],
    /** The api processes' base URLs now (a killed one is replaced). */
    private readonly bases: () => string[],
  ) {}

  start(clients: number) {
    this.running = Array.from({ length: clients }, async (_, client) => {
      const draw = new Draw((this.seed ^ Math.imul(client + 1, 0x9e3779b9)) >>> 0);
      const account = this.accounts[client % this.accounts.length]!;
      for (let round = 0; !this.stopped; round++) {
        const bases = this.bases();
        await this.send(draw.weighted(this.mix), bases[client % bases.length]!, account, `${client}.${round}`);
      }
    });
  }

  /** Stops the clients after their requests in flight are answered. */
  async stop() {
    this.stopped = true;
    await Promise.all(this.running);
  }

  /** Sends one request of `kind` and records its answer; the job id when the relay accepted it. */
  async send(kind: RequestKind, base: string, account: Account, tag: string, signal?: AbortSignal): Promise<string | undefined> {
    const step = this.step;
    const deadline = AbortSignal.timeout(ANSWER_DEADLINE_MS);
    try {
      const res = await fetch(...request(kind, base, account.key, tag, signal ? AbortSignal.any([signal, deadline]) : deadline));
      const text = await res.text();
      let id: string | undefined;
      if (res.status === 202) {
        id = (JSON.parse(text) as { id: string }).id;
        this.accepted.set(id, { key: account.key, step });
      }
      if (res.status === 200) recordDelivery(this.delivered, res, text);
      this.note(String(res.status), `${kind} answered ${res.status}: ${text.slice(0, 300)}`, step);
      return id;
    } catch (error) {
      // the client left, the api process it talked to was killed, or no answer came in time
      if (deadline.aborted) this.note('no answer', `${kind} to ${base}: no answer within ${ANSWER_DEADLINE_MS / 1000} s`, step);
      else this.note(signal?.aborted ? 'departed' : 'connection', String(error), step);
      return undefined;
    }
  }

  /** Records an answer; one a client cannot act on is an oddity of the step in force when it was asked. */
  note(status: string, what: string, step = this.step) {
    if (!CHAOS_STATUSES.includes(status)) this.oddities.push({ step, what });
    this.answers.record(status);
  }
}

function request(kind: RequestKind, base: string, key: string, tag: string, signal?: AbortSignal): [string, RequestInit] {
  const bearer = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const later = { Prefer: 'respond-async' };
  const image = (body: Record<string, unknown>, headers: Record<string, string> = {}): [string, RequestInit] => [
    `${base}/v1/images/generations`,
    { method: 'POST', headers: { ...bearer, ...headers }, body: JSON.stringify({ ...IMAGE, prompt: `chaos ${tag}`, ...body }), signal },
  ];
  const speech = (headers: Record<string, string> = {}): [string, RequestInit] => [
    `${base}${SPEECH_PATH}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': key, ...headers },
      body: JSON.stringify(speechBody(`chaos speech ${tag}`)),
      signal,
    },
  ];
  const round = Number(tag.split('.')[1] ?? 0);
  switch (kind) {
    case 'image':
      return image({});
    case 'image-async':
      return image({}, later);
    case 'images-2':
      return image({ prompt: `chaos ${tag} 2 images`, sequential_image_generation: 'auto' });
    case 'speech':
      return speech();
    case 'speech-async':
      return speech(later);
    case 'idempotent':
      // five keys per account, replayed over the run: replays meet jobs queued, running and done
      return image({ prompt: `idempotent ${round % 5}` }, { 'Idempotency-Key': `chaos-${round % 5}` });
    case 'refused':
      return image({ size: '1x1' });
  }
}
