import { ownValue, type Catalog } from '@relay/core';

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso.length === 10 ? `${iso}T00:00:00Z` : iso) / 1000);

/**
 * What an answer on a speech model whose vendor model retires says of it, in headers clients and
 * gateways read without the docs: `Deprecation` (RFC 9745, the date the vendor deprecated it),
 * `Sunset` (RFC 8594, the date set for the move, when one is) and a `Link` to the catalog's model
 * on the successor (RFC 8288 `successor-version`, in the dialect's own path). The public id keeps
 * answering after the sunset: it is the vendor model behind it that goes.
 */
export function retirementHeaders(catalog: Catalog, modelId: string, modelPath: (id: string) => string): Record<string, string> {
  const retirement = ownValue(catalog.speechModels, modelId)?.retirement;
  if (!retirement) return {};
  const headers: Record<string, string> = {};
  if (retirement.since) headers.Deprecation = `@${epochSeconds(retirement.since)}`;
  if (retirement.sunset) headers.Sunset = new Date(epochSeconds(retirement.sunset) * 1000).toUTCString();
  const successor = Object.entries(catalog.speechModels).find(
    ([id, model]) => id !== modelId && model.upstreamModel === retirement.successor,
  );
  if (successor) headers.Link = `<${modelPath(successor[0])}>; rel="successor-version"`;
  return headers;
}
