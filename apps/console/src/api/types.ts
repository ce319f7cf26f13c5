import type { z } from 'zod';
import type * as contract from '@relay/api/contract';

/** The admin API's answers and bodies, inferred from the server's own zod schemas (types only). */
export type ConsoleConfig = z.output<typeof contract.consoleConfigSchema>;
export type AccountSummary = z.output<typeof contract.accountSummarySchema>;
export type AccountList = z.output<typeof contract.accountListSchema>;
export type AccountDetails = z.output<typeof contract.accountDetailsSchema>;
export type Account = z.output<typeof contract.accountSchema>;
export type KeyRecord = z.output<typeof contract.keyRecordSchema>;
export type NewKey = z.output<typeof contract.newKeySchema>;
export type KeyBody = z.input<typeof contract.keyBody>;
export type CreditBody = z.input<typeof contract.creditBody>;
export type AccountScheduleBody = z.input<typeof contract.accountScheduleBody>;
export type BalanceAnswer = z.output<typeof contract.balanceAnswerSchema>;
export type LedgerEntry = z.output<typeof contract.ledgerEntrySchema>;
export type LedgerPage = z.output<typeof contract.ledgerPageSchema>;
export type UsageQuery = z.input<typeof contract.usageQuery>;
export type DailyUsage = z.output<typeof contract.dailyUsageSchema>;
export type Traffic = z.output<typeof contract.trafficSchema>;
export type QueueStats = z.output<typeof contract.queueStatsSchema>;
export type ScheduleStats = z.output<typeof contract.scheduleStatsSchema>;
export type AdminCatalog = z.output<typeof contract.adminCatalogSchema>;
export type ImageRequest = z.input<typeof contract.imageRequestFields>;
export type ImagesResponse = z.output<typeof contract.imagesResponseSchema>;
export type SpeechRequest = z.input<typeof contract.speechRequestFields>;
export type GenerateContentResponse = z.output<typeof contract.generateContentResponseSchema>;
export type OpenAIError = z.output<typeof contract.openAIErrorSchema>;
export type GoogleError = z.output<typeof contract.googleErrorSchema>;
