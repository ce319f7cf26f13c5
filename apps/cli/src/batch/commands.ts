/** The batch CLI's commands, as typed after `npm run batch --`; the docs test holds the docs to them. */
export const BATCH_COMMANDS = ['run', 'resume', 'status', 'cancel'] as const;

export type BatchCommand = (typeof BATCH_COMMANDS)[number];

export const isBatchCommand = (value: string): value is BatchCommand => (BATCH_COMMANDS as readonly string[]).includes(value);
