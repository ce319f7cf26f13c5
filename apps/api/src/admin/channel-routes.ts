import express, { type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { AppError, CAPABILITIES, parseOrThrow, VENDORS, type Catalog } from '@relay/core';
import { errorResponses } from '@relay/jobs';
import {
  channelCreateBody,
  channelPatchBody,
  channelViews,
  channelViewSchema,
  createChannelStore,
  unknownModels,
  type ChannelRecord,
  type KeySealer,
} from '@relay/channels';
import { jsonBody } from '../http/json-body.js';
import { ADMIN_SECURITY, jsonAnswer, jsonRequest } from '../openapi/parts.js';

const channelPath = z.object({ id: z.string().describe('The channel id') });
export const channelListSchema = z.object({ channels: z.array(channelViewSchema) }).meta({ id: 'ChannelList' });

export interface ChannelRoutesDeps {
  redis: Redis;
  prefix: string;
  catalog: Catalog;
  /** Seals keys at rest; without CHANNEL_SECRET a channel with a key cannot be added. */
  sealer: KeySealer | undefined;
  bodyLimit: number;
  /** The upstream simulator's address (the config file's `console.simulatorUrl`): channels on it are shown as simulated. */
  simulatorUrl?: string | undefined;
}

/**
 * The upstream channels at run time: listed (with their breaker state, calls in flight, recent
 * failures and latency; never a key), added, changed, removed. Every worker sees a change within
 * `tuning.worker.channelRefreshMs` (2 s).
 */
export function channelRoutes(deps: ChannelRoutesDeps) {
  const router = express.Router();
  const store = createChannelStore(deps.redis, deps.prefix);
  const present = async (records: ChannelRecord[]) => channelViews(deps.redis, deps.prefix, deps.catalog, records, deps.simulatorUrl);
  const seal = (apiKey: string) => {
    if (!deps.sealer)
      throw new AppError(
        'invalid_request',
        'the relay has no CHANNEL_SECRET: set one on the api and the workers to store channel keys (they are kept encrypted with it)',
        { param: 'apiKey' },
      );
    return deps.sealer.seal(apiKey);
  };
  const checkModels = (upstream: ChannelRecord['upstream'], models: Record<string, string> | null | undefined) => {
    const unknown = models ? unknownModels(deps.catalog, upstream, models) : [];
    if (unknown.length)
      throw new AppError(
        'invalid_request',
        `models: ${unknown.join(', ')} ${unknown.length === 1 ? 'is no' : 'are no'} ${CAPABILITIES[VENDORS[upstream].capability].noun} model of the catalog`,
        { param: 'models' },
      );
  };
  const channelOr404 = async (id: string) => {
    const channel = await store.get(id);
    if (!channel) throw new AppError('not_found', `no channel ${id}`);
    return channel;
  };

  router.get('/channels', async (_req, res) => {
    res.json({ channels: await present(await store.list()) });
  });

  router.get('/channels/:id', async (req, res) => {
    res.json((await present([await channelOr404(parseOrThrow(channelPath, req.params).id)]))[0]);
  });

  router.post('/channels', jsonBody(deps.bodyLimit), async (req: Request, res: Response) => {
    const body = parseOrThrow(channelCreateBody, req.body);
    checkModels(body.upstream, body.models);
    await store.create({
      id: body.id,
      upstream: body.upstream,
      baseUrl: body.baseUrl,
      keySealed: seal(body.apiKey),
      keyEnv: null,
      models: body.models ?? null,
      weight: body.weight,
      priority: body.priority,
      maxConcurrent: body.maxConcurrent,
      maxPerMinute: body.maxPerMinute,
      capacityGroup: body.capacityGroup ?? null,
      timeoutMs: body.timeoutMs ?? null,
    });
    res.status(201).json((await present([await channelOr404(body.id)]))[0]);
  });

  router.patch('/channels/:id', jsonBody(deps.bodyLimit), async (req: Request, res: Response) => {
    const body = parseOrThrow(channelPatchBody, req.body);
    const channel = await channelOr404(parseOrThrow(channelPath, req.params).id);
    checkModels(channel.upstream, body.models);
    if (channel.source === 'config' && (body.apiKey !== undefined || body.baseUrl !== undefined)) {
      throw new AppError(
        'invalid_request',
        `${channel.id} comes from the relay's configuration: its address and key are set there (RELAY_CONFIG and the environment)`,
        { param: body.apiKey !== undefined ? 'apiKey' : 'baseUrl' },
      );
    }
    const { apiKey, disabled, ...rest } = body;
    const fields: Partial<ChannelRecord> = { ...rest, ...(apiKey !== undefined ? { keySealed: seal(apiKey) } : {}) };
    if (disabled !== undefined) Object.assign(fields, { disabled, disabledReason: disabled ? 'by an operator' : null });
    await store.patch(channel.id, fields);
    // back into service: an exhausted quota or an open breaker is the operator's to lift as well
    if (disabled === false) await store.clearHealth(channel.id);
    res.json((await present([await channelOr404(channel.id)]))[0]);
  });

  router.delete('/channels/:id', async (req, res) => {
    const channel = await channelOr404(parseOrThrow(channelPath, req.params).id);
    if (channel.source === 'config') {
      throw new AppError(
        'conflict',
        `${channel.id} comes from the relay's configuration: disable it (PATCH {"disabled": true}) or remove it from RELAY_CONFIG`,
        { retryable: false },
      );
    }
    const [view] = await present([channel]);
    await store.remove(channel.id);
    res.json(view);
  });

  return router;
}

const admin = { tags: ['admin'], security: ADMIN_SECURITY };
const ofChannel = { ...admin, requestParams: { path: channelPath } };

export const channelPaths: ZodOpenApiPathsObject = {
  '/admin/channels': {
    get: {
      ...admin,
      summary: 'Upstream channels: breaker state, calls in flight, recent failures, latency (never a key)',
      responses: { '200': jsonAnswer('The channels', channelListSchema), ...errorResponses('openai', [401]) },
    },
    post: {
      ...admin,
      summary:
        'Add an upstream channel (its key is kept encrypted with CHANNEL_SECRET); every worker uses it within seconds (tuning.worker.channelRefreshMs, 2 s by default)',
      requestBody: jsonRequest(channelCreateBody),
      responses: { '201': jsonAnswer('The channel', channelViewSchema), ...errorResponses('openai', [400, 401, 409, 413, 415]) },
    },
  },
  '/admin/channels/{id}': {
    get: {
      ...ofChannel,
      summary: 'One channel',
      responses: { '200': jsonAnswer('The channel', channelViewSchema), ...errorResponses('openai', [401, 404]) },
    },
    patch: {
      ...ofChannel,
      summary: 'Change a channel: weight, tier, capacity, models, key, or take it out of service (disabled)',
      requestBody: jsonRequest(channelPatchBody),
      responses: { '200': jsonAnswer('The channel', channelViewSchema), ...errorResponses('openai', [400, 401, 404, 413, 415]) },
    },
    delete: {
      ...ofChannel,
      summary: 'Remove a channel added through this API (config channels can only be disabled)',
      responses: { '200': jsonAnswer('The removed channel', channelViewSchema), ...errorResponses('openai', [401, 404, 409]) },
    },
  },
};
