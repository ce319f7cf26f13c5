import { z } from 'zod';
import { dailyUsageSchema, ledgerPageSchema } from '@relay/billing';
import { newWebhookSchema, speechRequestFields, webhookBody, webhookDeliveriesSchema, webhookEndpointSchema } from '@relay/jobs';
import {
  accountBody,
  accountDetailsSchema,
  accountScheduleBody,
  balanceAnswerSchema,
  creditBody,
  keyBody,
  keyListSchema,
  newKeySchema,
} from '../admin/schemas.js';
import { accountListSchema, adminCatalogSchema, consoleConfigSchema, demoKeySchema, queueStatsSchema } from '../admin/console-schemas.js';
import { scheduleStatsSchema } from '../admin/schedule-stats.js';
import { accountSchema, keyRecordSchema } from '../auth/records.js';
import { trafficSchema } from '../stats/read-traffic.js';
import { channelCreateBody, channelPatchBody, channelViewSchema } from '@relay/channels';
import {
  adminBatchListSchema,
  batchCreateBody,
  batchListSchema,
  batchObjectSchema,
  batchResultsSchema,
  fileDeletedSchema,
  fileListSchema,
  fileObjectSchema,
} from '@relay/batch';
import { countTokensBody } from '../gemini/count-tokens.js';
import {
  countTokensResponseSchema,
  generateContentResponseSchema,
  geminiModelListSchema,
  geminiModelSchema,
  googleErrorSchema,
} from '@relay/jobs';
import { imagesResponseSchema, jobObjectSchema, openAIErrorSchema, openAIModelListSchema, openAIModelSchema } from '@relay/jobs';

/**
 * Every named schema of the document: the zod schemas the code itself parses and answers with,
 * rendered by zod-openapi (each becomes a $ref wherever a path uses it).
 */
export function componentSchemas() {
  return {
    ImagesResponse: imagesResponseSchema,
    SpeechRequest: speechRequestFields,
    GenerateContentResponse: generateContentResponseSchema,
    CountTokensRequest: countTokensBody,
    CountTokensResponse: countTokensResponseSchema,
    GeminiModel: geminiModelSchema,
    GeminiModelList: geminiModelListSchema,
    OpenAIModel: openAIModelSchema,
    OpenAIModelList: openAIModelListSchema,
    JobObject: jobObjectSchema,
    OpenAIError: openAIErrorSchema,
    GoogleError: googleErrorSchema,
    AccountBody: accountBody,
    AccountScheduleBody: accountScheduleBody,
    KeyBody: keyBody,
    CreditBody: creditBody,
    Account: accountSchema,
    AccountDetails: accountDetailsSchema,
    KeyRecord: keyRecordSchema,
    NewKey: newKeySchema,
    KeyList: keyListSchema,
    Balance: balanceAnswerSchema,
    LedgerPage: ledgerPageSchema,
    AccountList: accountListSchema,
    DailyUsage: dailyUsageSchema,
    Traffic: trafficSchema,
    QueueStats: queueStatsSchema,
    ScheduleStats: scheduleStatsSchema,
    AdminCatalog: adminCatalogSchema,
    ConsoleConfig: consoleConfigSchema,
    DemoKey: demoKeySchema,
    FileObject: fileObjectSchema,
    FileList: fileListSchema,
    FileDeleted: fileDeletedSchema,
    BatchCreate: batchCreateBody,
    Batch: batchObjectSchema,
    BatchList: batchListSchema,
    BatchResults: batchResultsSchema,
    WebhookBody: webhookBody,
    ChannelBody: channelCreateBody,
    ChannelPatch: channelPatchBody,
    Channel: channelViewSchema,
    ChannelList: z.object({ channels: z.array(channelViewSchema) }),
    AdminBatchList: adminBatchListSchema,
    AdminBatch: batchObjectSchema.extend({ account_id: z.string() }),
    WebhookEndpoint: webhookEndpointSchema,
    NewWebhook: newWebhookSchema,
    WebhookList: z.object({ webhooks: z.array(webhookEndpointSchema) }),
    WebhookDeliveries: webhookDeliveriesSchema,
  };
}

export type SchemaName = keyof ReturnType<typeof componentSchemas>;
export const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
