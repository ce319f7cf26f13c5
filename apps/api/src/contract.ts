/**
 * The admin API's wire shapes, for the console: it imports these as types only
 * (`z.output<typeof …>`), so its bundle holds none of the api's code and cannot drift from it.
 */
export { accountSchema, keyRecordSchema } from './auth/records.js';
export {
  accountDetailsSchema,
  accountScheduleBody,
  balanceAnswerSchema,
  creditBody,
  keyBody,
  keyListSchema,
  newKeySchema,
  usageQuery,
} from './admin/schemas.js';
export {
  accountListSchema,
  accountSummarySchema,
  adminCatalogSchema,
  consoleConfigSchema,
  demoKeySchema,
  queueStatsSchema,
} from './admin/console-schemas.js';
export { scheduleStatsSchema } from './admin/schedule-stats.js';
export { trafficSchema } from './stats/read-traffic.js';
export { imagesResponseSchema, openAIErrorSchema } from '@relay/jobs';
export { generateContentResponseSchema, googleErrorSchema } from '@relay/jobs';
export { dailyUsageSchema, ledgerEntrySchema, ledgerPageSchema } from '@relay/billing';
export { imageRequestFields, speechRequestFields } from '@relay/jobs';
export { channelViewSchema, channelPatchBody, channelCreateBody } from '@relay/channels';
export { adminBatchListSchema, batchObjectSchema } from '@relay/batch';
