import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { BATCH_COMMANDS, isBatchCommand, type BatchCommand } from './commands.js';

export const OPTIONS = {
  model: { type: 'string', default: 'vendor-gen-5-0-260128' },
  size: { type: 'string' },
  n: { type: 'string' },
  set: { type: 'string' },
  seed: { type: 'string' },
  'no-watermark': { type: 'boolean' },
  'output-format': { type: 'string' },
  voice: { type: 'string' },
  out: { type: 'string' },
  quiet: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsOptionsConfig;

/** What each command takes after its name (`<x>` required), and what it does, as the usage shows them. */
export const SYNTAX: Record<BatchCommand, { args: string; does: string }> = {
  run: { args: '<prompts.txt | lines.jsonl> [options]', does: 'upload, create, follow, download' },
  resume: { args: '<batch_id> [--out DIR]', does: 'go on after the CLI was stopped' },
  status: { args: '<batch_id> [--json]', does: "where it stands (--json: the API's batch object, for scripts)" },
  cancel: { args: '<batch_id> [--json]', does: 'cancels it; where it stands then' },
};

/**
 * A mistake in the command line, found before anything is sent: the CLI says it in one line,
 * with the usage of the command it was for, and exits 2 (never with a stack trace).
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: BatchCommand,
  ) {
    super(message);
  }
}

/** Edit distance. The batch CLI keeps to its few dependencies (the admin CLI has leven for the same). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The known word close enough to `typed` to be the one meant (a typo, not another word), as the admin CLI judges it. */
export function nearest(typed: string, known: readonly string[], maxDistance = Math.max(2, Math.floor(typed.length / 3))) {
  let best: { word: string; distance: number } | undefined;
  for (const word of known) {
    const d = distance(typed, word);
    if (d <= maxDistance && (!best || d < best.distance)) best = { word, distance: d };
  }
  return best?.word;
}

/**
 * The model a mistyped id most likely meant, as the relay itself judges it (packages/jobs
 * nearestModel): the only one it starts (a date suffix left off), else the nearest within half its length.
 */
export function nearestModel(asked: string, known: readonly string[]) {
  const prefixed = asked.length >= 3 ? known.filter((id) => id.startsWith(asked)) : [];
  return prefixed.length === 1 ? prefixed[0] : nearest(asked, known, Math.ceil(asked.length / 2));
}

const didYouMean = (meant: string | undefined) => (meant ? `; did you mean ${meant}?` : '');

/**
 * parseArgs's error, said for people. Its message is Node's prose and names the option only
 * inside it, so the option at fault is found again in the tokens of a lenient parse instead.
 */
function explain(error: unknown, args: string[]): string {
  const { tokens } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = Object.hasOwn(OPTIONS, token.name) ? OPTIONS[token.name as keyof typeof OPTIONS] : undefined;
    if (!option) {
      // `-model` is read as -m -o -d ...: name what was typed, which is what resembles --model
      const typed = token.rawName.startsWith('--') ? token.rawName : args[token.index]!.split('=')[0]!;
      const longNames = Object.keys(OPTIONS).map((o) => `--${o}`);
      return `unknown option ${typed}${didYouMean(nearest(typed, longNames))}`;
    }
    const { rawName, value, inlineValue } = token;
    if (option.type === 'boolean') {
      if (value !== undefined) return `option ${rawName} takes no value`;
    } else if (value === undefined) {
      return `option ${rawName} needs a value`;
    } else if (!inlineValue && value.startsWith('-')) {
      // strict parsing takes `--model --quiet` for a forgotten value, and `--seed -1` alike
      return `option ${rawName} needs a value (to give it '${value}', write ${rawName}=${value})`;
    }
  }
  return (error as Error).message.split('\n')[0]!;
}

/** A whole number as typed, or undefined when the option was not given. */
function wholeNumber(name: 'n' | 'set' | 'seed', value: string | undefined, command: BatchCommand) {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} takes a whole number, not '${value}'`, command);
  return Number.parseInt(value, 10);
}

/**
 * The batch CLI's command line, checked whole before anything is sent: options, the command, its
 * one argument and the numbers. Anything wrong throws a UsageError.
 */
export function parseCommandLine(args: string[]) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    const typedCommand = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: false }).positionals.find(isBatchCommand);
    throw new UsageError(explain(error, args), typedCommand);
  }
  const { values } = parsed;
  const [command, arg, ...extra] = parsed.positionals;
  if (values.help || command === undefined) return { values, help: true as const };
  if (!isBatchCommand(command)) {
    // `npm run batch -- prompts.txt`: a file where the command goes
    const meant = /[./]/.test(command) ? `run ${command}` : nearest(command, BATCH_COMMANDS);
    throw new UsageError(
      `unknown command '${command}'${meant ? `; did you mean '${meant}'?` : `; the commands are ${BATCH_COMMANDS.join(', ')}`}`,
    );
  }
  const wanted = /^<[^>]+>/.exec(SYNTAX[command].args)![0];
  if (!arg) throw new UsageError(`'${command}' needs ${wanted}`, command);
  if (extra.length) throw new UsageError(`'${command}' takes one ${wanted}; unexpected '${extra[0]}'`, command);
  return {
    values,
    help: false as const,
    command,
    arg,
    n: wholeNumber('n', values.n, command),
    set: wholeNumber('set', values.set, command),
    seed: wholeNumber('seed', values.seed, command),
  };
}
