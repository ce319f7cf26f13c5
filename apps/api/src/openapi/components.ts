import { z } from 'zod';
import { dailyUsageSchema, ledgerPageSchema } from '@relay/billing';
import type { Catalog } from '@relay/core';
import {
  imageRequestFields,
  newWebhookSchema,
  speechRequestFields,
  webhookBody,
  webhookDeliveriesSchema,
  webhookEndpointSchema,
} from '@relay/jobs';
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

/** JSON Schema 2020-12 (OpenAPI 3.1's own dialect) of what a client sends or receives. */
function schemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** Every schema of the document, each generated from the zod schema the code itself uses. */
export function componentSchemas(catalog: Catalog) {
  const imageRequest = schemaOf(imageRequestFields) as { properties: Record<string, Record<string, unknown>> };
  imageRequest.properties.model = { ...imageRequest.properties.model, enum: Object.keys(catalog.imageModels) };
  return {
    ImageRequest: imageRequest,
    ImagesResponse: schemaOf(imagesResponseSchema),
    SpeechRequest: schemaOf(speechRequestFields),
    GenerateContentResponse: schemaOf(generateContentResponseSchema),
    CountTokensRequest: schemaOf(countTokensBody),
    CountTokensResponse: schemaOf(countTokensResponseSchema),
    GeminiModel: schemaOf(geminiModelSchema),
    GeminiModelList: schemaOf(geminiModelListSchema),
    OpenAIModel: schemaOf(openAIModelSchema),
    OpenAIModelList: schemaOf(openAIModelListSchema),
    JobObject: schemaOf(jobObjectSchema),
    OpenAIError: schemaOf(openAIErrorSchema),
    GoogleError: schemaOf(googleErrorSchema),
    AccountBody: schemaOf(accountBody),
    AccountScheduleBody: schemaOf(accountScheduleBody),
    KeyBody: schemaOf(keyBody),
    CreditBody: schemaOf(creditBody),
    Account: schemaOf(accountSchema),
    AccountDetails: schemaOf(accountDetailsSchema),
    KeyRecord: schemaOf(keyRecordSchema),
    NewKey: schemaOf(newKeySchema),
    KeyList: schemaOf(keyListSchema),
    Balance: schemaOf(balanceAnswerSchema),
    LedgerPage: schemaOf(ledgerPageSchema),
    AccountList: schemaOf(accountListSchema),
    DailyUsage: schemaOf(dailyUsageSchema),
    Traffic: schemaOf(trafficSchema),
    QueueStats: schemaOf(queueStatsSchema),
    ScheduleStats: schemaOf(scheduleStatsSchema),
    AdminCatalog: schemaOf(adminCatalogSchema),
    ConsoleConfig: schemaOf(consoleConfigSchema),
    DemoKey: schemaOf(demoKeySchema),
    FileObject: schemaOf(fileObjectSchema),
    FileList: schemaOf(fileListSchema),
    FileDeleted: schemaOf(fileDeletedSchema),
    BatchCreate: schemaOf(batchCreateBody),
    Batch: schemaOf(batchObjectSchema),
    BatchList: schemaOf(batchListSchema),
    BatchResults: schemaOf(batchResultsSchema),
    WebhookBody: schemaOf(webhookBody),
    ChannelBody: schemaOf(channelCreateBody),
    ChannelPatch: schemaOf(channelPatchBody),
    Channel: schemaOf(channelViewSchema),
    ChannelList: schemaOf(z.object({ channels: z.array(channelViewSchema) })),
    AdminBatchList: schemaOf(adminBatchListSchema),
    AdminBatch: schemaOf(batchObjectSchema.extend({ account_id: z.string() })),
    WebhookEndpoint: schemaOf(webhookEndpointSchema),
    NewWebhook: schemaOf(newWebhookSchema),
    WebhookList: schemaOf(z.object({ webhooks: z.array(webhookEndpointSchema) })),
    WebhookDeliveries: schemaOf(webhookDeliveriesSchema),
  };
}

export type SchemaName = keyof ReturnType<typeof componentSchemas>;
export const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
